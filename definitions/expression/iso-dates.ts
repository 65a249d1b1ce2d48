/**
 * ISO 8601 dates and date-times: recognising them in expression text (one regex for the single
 * token class, as the lexer allows), checking that they name a real day and time, and turning
 * them into instants for comparison.
 */

/** The parts of a recognised date or date-time. */
export interface IsoDateParts {
  year: number;
  month: number;
  day: number;
  /** False for a plain `YYYY-MM-DD`. */
  hasTime: boolean;
  hour: number;
  minute: number;
  second: number;
  /** Milliseconds from the fraction (digits beyond the third are dropped). */
  millisecond: number;
  /** Offset east of UTC in minutes; null when the text has none (read as UTC). */
  offsetMinutes: number | null;
  /** Number of characters matched. */
  length: number;
}

// Literal syntax: `T` separator, offset `Z` or `±HH:MM`.
const LITERAL = /(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))?)?/y;
// Inside `TIMESTAMP '…'` SQL also writes a space between date and time.
const QUOTED = /(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))?)?/y;
// Values arriving in records come from many systems: accept the common spellings.
const LENIENT = /(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?/y;

const PATTERNS = { literal: LITERAL, quoted: QUOTED, lenient: LENIENT } as const;
export type IsoSyntax = keyof typeof PATTERNS;

/** Matches a date or date-time at `position`; null when the text there does not start with one. */
export function matchIsoDate(text: string, position: number, syntax: IsoSyntax): IsoDateParts | null {
  const pattern = PATTERNS[syntax];
  pattern.lastIndex = position;
  const m = pattern.exec(text);
  if (!m) return null;
  const num = (group: string | undefined): number => (group === undefined ? 0 : Number(group));
  const hasTime = m[4] !== undefined;
  let offsetMinutes: number | null = null;
  if (m[8] !== undefined) offsetMinutes = 0;
  else if (m[9] !== undefined) offsetMinutes = (m[9] === '-' ? -1 : 1) * (num(m[10]) * 60 + num(m[11]));
  return {
    year: num(m[1]),
    month: num(m[2]),
    day: num(m[3]),
    hasTime,
    hour: num(m[4]),
    minute: num(m[5]),
    second: num(m[6]),
    millisecond: m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0')),
    offsetMinutes,
    length: m[0].length,
  };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Why the parts do not name a real date and time, or null when they do. */
export function isoDateProblem(parts: IsoDateParts): string | null {
  const { year, month, day } = parts;
  if (month < 1 || month > 12) return `month ${month} does not exist`;
  const days = daysInMonth(year, month);
  if (day < 1 || day > days) return `${MONTHS[month - 1]} ${year} has ${days} days`;
  if (parts.hour > 23) return `hour ${parts.hour} does not exist`;
  if (parts.minute > 59) return `minute ${parts.minute} does not exist`;
  if (parts.second > 59) return `second ${parts.second} does not exist`;
  if (parts.offsetMinutes !== null && Math.abs(parts.offsetMinutes) > 23 * 60 + 59) return 'the UTC offset is out of range';
  return null;
}

/** Milliseconds since the epoch; a date is midnight UTC, a date-time without offset is UTC. */
export function isoDateToEpochMillis(parts: IsoDateParts): number {
  // setUTCFullYear rather than Date.UTC, which maps years 0–99 to 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(parts.year, parts.month - 1, parts.day);
  date.setUTCHours(parts.hour, parts.minute, parts.second, parts.millisecond);
  return date.getTime() - (parts.offsetMinutes ?? 0) * 60_000;
}

/**
 * The instant a runtime value stands for, or null: a valid JS Date, or a string that is entirely
 * an ISO date or date-time (surrounding whitespace allowed).
 */
export function toEpochMillis(value: unknown): number | null {
  if (value instanceof Date) {
    const time = value.getTime();
    return Number.isNaN(time) ? null : time;
  }
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const parts = matchIsoDate(text, 0, 'lenient');
  if (!parts || parts.length !== text.length || isoDateProblem(parts) !== null) return null;
  return isoDateToEpochMillis(parts);
}
