/**
 * The ticker's `filter` message: the filter as text with its placeholders named (`email =
 * #email#`) — the values stay out, since the log keeps ticker messages even when it does not keep
 * payloads.
 */
import { collectPlaceholders, formatExpression, type Expression } from '../../../definitions/expression/index.js';
import type { Ticker } from '../ticker.js';

export function sayFilter(ticker: Ticker, label: string, filter: Expression | undefined): void {
  if (filter === undefined) {
    ticker.say('filter', `${label}: no filter`);
    return;
  }
  const text = formatExpression(filter);
  const placeholders = [...new Set(collectPlaceholders(filter).map((placeholder) => placeholder.path.join('.')))];
  ticker.say('filter', `${label}: ${text}`, { filter: text, placeholders });
}
