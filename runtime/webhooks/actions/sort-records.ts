/**
 * Sorting query rows in memory by a webhook's `order`: a query has no ORDER BY to push to (its
 * statement is the system's own SQL), so the rows are sorted here with the expression language's
 * comparison. Nulls sort last ascending, first descending; the sort is stable.
 */
import type { RecordData } from '../../../connectors/connection.js';
import { compareValues, resolvePath } from '../../../definitions/expression/index.js';
import type { OrderTerm } from '../../../definitions/order/parse-order.js';

export function sortRecords(records: RecordData[], order: readonly OrderTerm[]): RecordData[] {
  return records.sort((a, b) => {
    for (const term of order) {
      const left = resolvePath(a, term.field);
      const right = resolvePath(b, term.field);
      const leftNull = left === null || left === undefined;
      const rightNull = right === null || right === undefined;
      let difference: number;
      if (leftNull || rightNull) difference = leftNull === rightNull ? 0 : leftNull ? 1 : -1;
      else difference = Math.sign(compareValues(left, right) ?? 0);
      if (difference !== 0) return term.direction === 'asc' ? difference : -difference;
    }
    return 0;
  });
}
