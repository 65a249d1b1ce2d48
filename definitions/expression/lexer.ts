/**
 * Turns expression text into tokens on demand. Scanning is lazy so that the earliest problem in
 * the text is the one reported, whether the lexer or the parser finds it.
 */

import { doubleHolds } from './compare-values.js';
import { isoDateProblem, matchIsoDate } from './iso-dates.js';
import { describePosition, ExpressionSyntaxError } from './syntax-error.js';
import { excerpt, type Token } from './tokens.js';

const NUMBER = /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '9';
}

function isWordStart(ch: string | undefined): boolean {
  return ch !== undefined && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '_');
}

function isWordPart(ch: string | undefined): boolean {
  return isWordStart(ch) || isDigit(ch);
}

function isPlaceholderPart(ch: string | undefined): boolean {
  return isWordPart(ch) || ch === '-';
}

function isWhitespace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v' || ch === '\u00a0' || ch === '\ufeff';
}

/** A character as a message shows it: printable ones as themselves, others as U+XXXX. */
function showChar(text: string, offset: number): string {
  const code = text.codePointAt(offset) ?? 0;
  if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${String.fromCodePoint(code)}'`;
}

export class Lexer {
  private readonly lookahead: Token[] = [];
  private position = 0;

  constructor(private readonly source: string) {}

  /** The token `ahead` places after the current one, without consuming anything. */
  peek(ahead = 0): Token {
    while (this.lookahead.length <= ahead) this.lookahead.push(this.scan());
    return this.lookahead[ahead]!;
  }

  next(): Token {
    const token = this.peek();
    this.lookahead.shift();
    return token;
  }

  private fail(message: string, offset: number): never {
    throw new ExpressionSyntaxError(message, this.source, offset);
  }

  private scan(): Token {
    const src = this.source;
    while (isWhitespace(src[this.position])) this.position++;
    const start = this.position;
    const ch = src[start];
    if (ch === undefined) return { kind: 'end', start, end: start };

    if (isWordStart(ch)) {
      let end = start + 1;
      while (isWordPart(src[end])) end++;
      this.position = end;
      const text = src.slice(start, end);
      return { kind: 'word', text, lower: text.toLowerCase(), start, end };
    }
    if (isDigit(ch)) return this.scanNumberOrDate(start);

    switch (ch) {
      case "'":
        return this.scanString(start);
      case '"':
        return this.scanQuotedName(start, '"', '"', 'quoted name');
      case '[':
        return this.scanQuotedName(start, '[', ']', 'bracketed name');
      case '#':
        return this.scanPlaceholder(start);
      case '=':
        if (src[start + 1] === '=') this.fail("unknown operator '=='; use '=' or 'eq'", start + 1);
        if (src[start + 1] === '>') this.fail("unknown operator '=>'; use '>=' or 'ge'", start);
        if (src[start + 1] === '<') this.fail("unknown operator '=<'; use '<=' or 'le'", start);
        return this.symbol('=', start);
      case '<':
        if (src[start + 1] === '=') return this.symbol('<=', start);
        if (src[start + 1] === '>') return this.symbol('<>', start);
        return this.symbol('<', start);
      case '>':
        return src[start + 1] === '=' ? this.symbol('>=', start) : this.symbol('>', start);
      case '!':
        if (src[start + 1] === '=') return this.symbol('!=', start);
        return this.fail("unknown operator '!'; use NOT or '<>'", start);
      case '&':
        return this.fail(`unknown operator '${src[start + 1] === '&' ? '&&' : '&'}'; use AND`, start);
      case '|':
        return this.fail(`unknown operator '${src[start + 1] === '|' ? '||' : '|'}'; use OR`, start);
      case '(':
      case ')':
      case ',':
      case '/':
      case '-':
        return this.symbol(ch, start);
      case '.':
        if (isDigit(src[start + 1])) this.fail('a number needs a digit before its decimal point (write 0.5, not .5)', start);
        return this.symbol('.', start);
      case ']':
        return this.fail("unexpected ']' without a matching '['", start);
      case '%':
        return this.fail("unexpected character '%'; LIKE patterns are strings, e.g. LIKE 'abc%'", start);
      case '+':
      case '*':
        return this.fail(`unexpected character '${ch}'; arithmetic is not supported`, start);
      default:
        return this.fail(`unexpected character ${showChar(src, start)}`, start);
    }
  }

  private symbol(text: Extract<Token, { kind: 'symbol' }>['text'], start: number): Token {
    this.position = start + text.length;
    return { kind: 'symbol', text, start, end: this.position };
  }

  /** The run of number-ish characters from `start`, for "malformed …" messages. */
  private runFrom(start: number, extra: string): string {
    let end = start;
    while (end < this.source.length && (isWordPart(this.source[end]) || extra.includes(this.source[end]!))) end++;
    return excerpt(this.source.slice(start, end));
  }

  private scanNumberOrDate(start: number): Token {
    const src = this.source;
    const looksLikeDate = isDigit(src[start + 1]) && isDigit(src[start + 2]) && isDigit(src[start + 3]) && src[start + 4] === '-';
    if (looksLikeDate) {
      const parts = matchIsoDate(src, start, 'literal');
      const end = start + (parts?.length ?? 0);
      const next = src[end];
      if (!parts || isWordPart(next) || (next !== undefined && ':.+-'.includes(next))) {
        this.fail(
          `malformed date '${this.runFrom(start, ':.+-')}'; write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS with an optional fraction and Z or ±HH:MM`,
          start,
        );
      }
      const text = src.slice(start, end);
      const problem = isoDateProblem(parts);
      if (problem) this.fail(`invalid date ${text}: ${problem}`, start);
      this.position = end;
      return { kind: 'date', value: text, hasTime: parts.hasTime, start, end };
    }
    NUMBER.lastIndex = start;
    const text = NUMBER.exec(src)![0];
    const end = start + text.length;
    if (isWordPart(src[end]) || src[end] === '.') this.fail(`malformed number '${this.runFrom(start, '.+-')}'`, start);
    const value = Number(text);
    if (!Number.isFinite(value)) this.fail(`number ${excerpt(text)} is too large`, start);
    // Digits past 2^53, or a spelling of such a number a double rounds (1234567890123456790.0).
    if (value > Number.MAX_SAFE_INTEGER && (/^\d+$/.test(text) || !doubleHolds(value, text))) {
      this.fail(`number ${excerpt(text)} is too large to represent exactly; quote it as a string`, start);
    }
    this.position = end;
    return { kind: 'number', value, start, end };
  }

  private scanString(start: number): Token {
    const src = this.source;
    let value = '';
    let chunkStart = start + 1;
    for (;;) {
      const quote = src.indexOf("'", chunkStart);
      if (quote < 0) this.fail(`unterminated string ${describePosition(src, start)}`, start);
      value += src.slice(chunkStart, quote);
      if (src[quote + 1] === "'") {
        value += "'";
        chunkStart = quote + 2;
        continue;
      }
      this.position = quote + 1;
      return { kind: 'string', value, start, end: this.position };
    }
  }

  private scanQuotedName(start: number, open: string, close: string, what: string): Token {
    const src = this.source;
    let name = '';
    let chunkStart = start + 1;
    for (;;) {
      const at = src.indexOf(close, chunkStart);
      if (at < 0) this.fail(`unterminated ${what} ${describePosition(src, start)}; close it with ${close}`, start);
      name += src.slice(chunkStart, at);
      if (src[at + 1] === close) {
        name += close;
        chunkStart = at + 2;
        continue;
      }
      this.position = at + 1;
      if (name === '') this.fail(`empty ${what} ${open}${close}`, start);
      return { kind: 'quotedName', name, start, end: this.position };
    }
  }

  private scanPlaceholder(start: number): Token {
    const src = this.source;
    const where = (): string => describePosition(src, start);
    if (src[start + 1] === '#') this.fail("empty placeholder '##'; put a field name between the hashes, e.g. #Email#", start);
    const path: string[] = [];
    let i = start + 1;
    for (;;) {
      const segmentStart = i;
      while (isPlaceholderPart(src[i])) i++;
      if (i === segmentStart) {
        if (i >= src.length) break;
        const what = src[i] === '.' || src[i] === '#' ? `an empty name segment` : `invalid character ${showChar(src, i)}`;
        this.fail(`${what} in placeholder ${where()}; placeholder names are letters, digits, '_' and '-', joined by '.'`, i);
      }
      path.push(src.slice(segmentStart, i));
      const ch = src[i];
      if (ch === '.') {
        i++;
        continue;
      }
      if (ch === '#') {
        this.position = i + 1;
        return { kind: 'placeholder', path, start, end: this.position };
      }
      if (ch === undefined) break;
      this.fail(
        `invalid character ${showChar(src, i)} in placeholder ${where()}; placeholder names are letters, digits, '_' and '-', joined by '.' and closed by '#'`,
        i,
      );
    }
    return this.fail(`unterminated placeholder ${where()}; close it with '#'`, start);
  }
}
