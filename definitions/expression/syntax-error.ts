/**
 * The one error the parser throws. Positions are relative to the expression's own text; whoever
 * embeds an expression in a bigger file (a YAML value, a request field) adds its own origin.
 */

/** An expression problem as data, ready to become a definition problem or an HTTP error detail. */
export interface ExpressionError {
  /** One sentence naming what was expected and what was found. */
  message: string;
  /** 0-based offset into the expression, within [0, source.length]. */
  offset: number;
  /** 1-based line within the expression. */
  line: number;
  /** 1-based column within that line, counted in UTF-16 code units (as editors and JS strings do). */
  column: number;
}

export class ExpressionSyntaxError extends Error implements ExpressionError {
  readonly offset: number;
  readonly line: number;
  readonly column: number;

  constructor(message: string, source: string, offset: number) {
    super(message);
    this.name = 'ExpressionSyntaxError';
    this.offset = Math.max(0, Math.min(offset, source.length));
    const { line, column } = lineAndColumn(source, this.offset);
    this.line = line;
    this.column = column;
  }

  toJSON(): ExpressionError {
    return { message: this.message, offset: this.offset, line: this.line, column: this.column };
  }
}

/** 1-based line and column of `offset`; `\r\n`, `\n` and `\r` each end a line. */
export function lineAndColumn(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < source.length; i++) {
    const ch = source.charCodeAt(i);
    if (ch === 0x0a || (ch === 0x0d && source.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Names a place by the text that starts there — `that begins "(a = 1 OR"` — rather than by a
 * column: the same message then reads right inside a request parameter and inside a YAML file,
 * where columns count from a different origin.
 */
export function describePosition(source: string, offset: number): string {
  const rest = source.slice(offset).split(/\r?\n|\r/)[0] ?? '';
  const snippet = rest.length > 20 ? `${rest.slice(0, 20)}…` : rest;
  return `that begins "${snippet}"`;
}
