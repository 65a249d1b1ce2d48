/**
 * Sort clauses: `lastName asc, id desc`, as written in definitions (`order`, `source.order`) and
 * sent as GETDATA_ORDER. OData's `$orderby` has the same shape. Field names are checked against the
 * object by the caller; here only the form is read, so a value is never spliced into SQL.
 */
export interface OrderTerm {
  field: string[];
  direction: 'asc' | 'desc';
  /** 0-based offset of the field in the clause, for error positions. */
  start: number;
}

export class OrderSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'OrderSyntaxError';
  }
}

const fieldPath = /^[A-Za-z_][A-Za-z0-9_]*([./][A-Za-z_][A-Za-z0-9_]*)*$/;

export function parseOrder(clause: string): OrderTerm[] {
  const terms: OrderTerm[] = [];
  let offset = 0;
  for (const piece of clause.split(',')) {
    const leading = piece.length - piece.trimStart().length;
    const words = piece.trim().split(/\s+/).filter(Boolean);
    const start = offset + leading;
    if (words.length === 0) throw new OrderSyntaxError('empty sort term; write field [asc|desc], separated by commas', start);
    const [field, direction, extra] = words as [string, string | undefined, string | undefined];
    if (!fieldPath.test(field)) throw new OrderSyntaxError(`'${field}' is not a field name`, start);
    if (direction !== undefined && !/^(asc|desc)$/i.test(direction)) {
      throw new OrderSyntaxError(`'${direction}' after '${field}' must be asc or desc`, start + piece.trim().indexOf(direction));
    }
    if (extra !== undefined)
      throw new OrderSyntaxError(`unexpected '${extra}'; separate sort terms with commas`, start + piece.trim().lastIndexOf(extra));
    terms.push({ field: field.split(/[./]/), direction: (direction?.toLowerCase() as 'asc' | 'desc') ?? 'asc', start });
    offset += piece.length + 1;
  }
  return terms;
}
