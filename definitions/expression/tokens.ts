/** Tokens produced by the lexer and the vocabulary the parser gives them. */

export type SymbolText = '=' | '<>' | '!=' | '<' | '<=' | '>' | '>=' | '(' | ')' | ',' | '.' | '/' | '-';

interface TokenRange {
  start: number;
  end: number;
}

export type Token =
  /** An identifier or keyword; the parser decides which from its position. */
  | (TokenRange & { kind: 'word'; text: string; lower: string })
  /** `"Order Date"` or `[Order Date]`, unquoted. */
  | (TokenRange & { kind: 'quotedName'; name: string })
  /** `'text'`, unquoted (`''` becomes `'`). */
  | (TokenRange & { kind: 'string'; value: string })
  | (TokenRange & { kind: 'number'; value: number })
  /** An unquoted ISO date or date-time, already checked to be real. */
  | (TokenRange & { kind: 'date'; value: string; hasTime: boolean })
  | (TokenRange & { kind: 'placeholder'; path: string[] })
  | (TokenRange & { kind: 'symbol'; text: SymbolText })
  | (TokenRange & { kind: 'end' });

/**
 * Words that are never field names without quoting. `DATE` and `TIMESTAMP` are keywords only
 * when a string follows them, so fields called `date` stay usable.
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'and',
  'or',
  'not',
  'like',
  'in',
  'is',
  'null',
  'true',
  'false',
  'between',
  'escape',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
]);

/** OData comparison words and the operator each stands for. */
export const WORD_OPERATORS: Readonly<Record<string, '=' | '<>' | '<' | '<=' | '>' | '>='>> = Object.freeze({
  eq: '=',
  ne: '<>',
  lt: '<',
  le: '<=',
  gt: '>',
  ge: '>=',
});

export function isWord(token: Token, lower: string): boolean {
  return token.kind === 'word' && token.lower === lower;
}

export function isSymbol(token: Token, text: SymbolText): boolean {
  return token.kind === 'symbol' && token.text === text;
}

const MAX_SHOWN = 30;

/** Source text quoted for a message, shortened when long. */
export function excerpt(text: string): string {
  const chars = Array.from(text);
  return chars.length > MAX_SHOWN ? `${chars.slice(0, MAX_SHOWN).join('')}…` : text;
}

/** How a message names a token: "end of expression", "keyword 'AND'", "string 'abc'", "')'". */
export function describeToken(token: Token, source: string): string {
  const raw = excerpt(source.slice(token.start, token.end));
  switch (token.kind) {
    case 'end':
      return 'end of expression';
    case 'word':
      return RESERVED_WORDS.has(token.lower) ? `keyword '${raw}'` : `'${raw}'`;
    case 'string':
      return `string ${raw}`;
    case 'number':
      return `number ${raw}`;
    case 'date':
      return `${token.hasTime ? 'date-time' : 'date'} ${raw}`;
    case 'placeholder':
      return `placeholder ${raw}`;
    default:
      return `'${raw}'`;
  }
}
