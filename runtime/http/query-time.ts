/**
 * A time given in a query parameter (`?createdFrom=…`, `?from=…`): an ISO 8601 date (`2030-01-31`,
 * midnight UTC) or a date and time with a zone (`…T12:00:00Z`, `…T12:00:00.5+02:00`). A time
 * without a zone is refused: it would be read in the server's zone, which the caller cannot see.
 * One parser for every list that filters by time, so each refuses the same texts the same way.
 */
import { HttpProblem } from '../errors.js';

const isoTime = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** What every refusal says a time looks like. */
export const queryTimeForm = 'an ISO 8601 date (2030-01-31) or date and time with a zone (2030-01-31T12:00:00Z, 2030-01-31T14:00:00+02:00)';

/** The time `text` names; a 400 naming the parameter `query.<name>` otherwise. */
export function parseQueryTime(name: string, text: string): Date {
  const match = isoTime.exec(text);
  if (!match) refuse(name, queryTimeForm);
  const [, year, month, day, hour = '0', minute = '0', second = '0'] = match;
  // Date.parse would roll 2030-02-30 over into March: each part must be in its range.
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (
    date.getUTCMonth() !== Number(month) - 1 ||
    date.getUTCDate() !== Number(day) ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59
  )
    refuse(name, `${text} is no such time; ${queryTimeForm}`);
  const time = new Date(match[4] === undefined ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(time.getTime())) refuse(name, queryTimeForm);
  return time;
}

/**
 * A range `[fromName, toName)` of two optional parameters: the start inclusive, the end exclusive,
 * and the end after the start (else a 400 at the end's parameter).
 */
export function parseQueryTimeRange(
  fromName: string,
  fromText: string | undefined,
  toName: string,
  toText: string | undefined,
): { from?: Date; to?: Date } {
  const from = fromText === undefined ? undefined : parseQueryTime(fromName, fromText);
  const to = toText === undefined ? undefined : parseQueryTime(toName, toText);
  if (from && to && from >= to) refuse(toName, `a time after ${fromName} (${fromName} is inclusive, ${toName} exclusive)`);
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

function refuse(name: string, message: string): never {
  throw new HttpProblem('invalid-request', `Query parameter ${name}: ${message}.`, { errors: [{ path: `query.${name}`, message }] });
}
