/**
 * A System as a scratch SQLite database stands in for it in `syncline test`: the same id, the same
 * objects with the same field names, types and keys, the same typed groups — on connector `sql`,
 * on a file in the case's scratch directory. Syncs, webhooks and flows name systems, objects and
 * fields, never connectors, so they run unchanged against the stand-in, and nothing reaches the
 * real system.
 *
 * - A `sql` system keeps its objects, tables, groups and named queries; only its connection
 *   changes. A schema-qualified table (`sales.orders`) becomes `sales_orders`, since a SQLite file
 *   has no schemas of its own; named queries run as written, on SQLite.
 * - Any other system (odata, http, file) gets one table per object, named after the object, and one
 *   child table per typed group (`<object>_<group>`, a foreign key column and a type column), as
 *   the sql connector models groups. Its named queries are in its own language (an OData path…),
 *   which SQLite does not speak: they are left out, with the reason.
 *
 * What cannot be stood in for is left out and said in `refused` — the sql connector joins group
 * entries on a single key field, so groups of an object with a composite key cannot be; the test
 * runner fails a case that touches it, naming the reason, rather than letting it pass or fail for
 * a reason that is not the user's.
 */
import type { GroupDefinition, ObjectDefinition, QueryDefinition, SystemDefinition } from '../../../definitions/types.js';

export interface ScratchSystem {
  /** The system on its scratch file: what the runtime under test uses (read-only flags and all). */
  definition: SystemDefinition;
  /**
   * The same tables with nothing read-only, required or length-limited: fixture rows are loaded
   * and rows read back through it, since a fixture is what a system holds, not a write a caller makes.
   */
  loader: SystemDefinition;
  /** Objects and queries left out, with the reason: `object Name` / `query Name` → why. */
  refused: ReadonlyMap<string, string>;
}

/** The key of an object or a query in `refused`. */
export function refusalKey(kind: 'object' | 'query', name: string): string {
  return `${kind} ${name}`;
}

export function scratchSystem(system: SystemDefinition, filename: string): ScratchSystem {
  const refused = new Map<string, string>();
  const objects: Record<string, ObjectDefinition> = {};
  let queries: Record<string, QueryDefinition> = {};
  if (system.connector === 'sql') {
    const tables = new Set(
      Object.values(system.objects ?? {}).flatMap((object) => [
        String(object.table),
        ...Object.values(object.groups ?? {}).map((group) => String(group.table)),
      ]),
    );
    for (const [name, object] of Object.entries(system.objects ?? {})) {
      const renamed = renamedTables(object, tables);
      if (typeof renamed === 'string') refused.set(refusalKey('object', name), renamed);
      else objects[name] = renamed;
    }
    queries = { ...system.queries };
  } else {
    const names = new UniqueNames();
    for (const [name, object] of Object.entries(system.objects ?? {})) {
      const table = ownTables(name, object, names);
      if (typeof table === 'string') refused.set(refusalKey('object', name), table);
      else objects[name] = table;
    }
    for (const name of Object.keys(system.queries ?? {})) {
      refused.set(
        refusalKey('query', name),
        `it is a query in the ${system.connector} connector's own language, which the scratch SQLite database does not speak`,
      );
    }
  }
  const definition: SystemDefinition = {
    kind: 'System',
    id: system.id,
    ...(system.name === undefined ? {} : { name: system.name }),
    connector: 'sql',
    connection: { client: 'sqlite3', filename },
    ...(system.readOnly === undefined ? {} : { readOnly: system.readOnly }),
    ...(system.limits === undefined ? {} : { limits: system.limits }),
    objects,
    queries,
  };
  return { definition, loader: writable(definition), refused };
}

/** `schema.table` → `schema_table`: a SQLite file has no schemas (but `main`, which is the file itself). */
function flatTable(table: unknown): string {
  const name = String(table);
  const dot = name.indexOf('.');
  if (dot < 0) return name;
  return name.slice(0, dot) === 'main' ? name.slice(dot + 1) : `${name.slice(0, dot)}_${name.slice(dot + 1)}`;
}

/** A sql object with its (and its groups') tables flattened; the reason when that takes a name in use. */
function renamedTables(object: ObjectDefinition, tables: ReadonlySet<string>): ObjectDefinition | string {
  const rename = (table: unknown): string | undefined => {
    const flat = flatTable(table);
    return flat !== String(table) && tables.has(flat) ? undefined : flat;
  };
  const table = rename(object.table);
  if (table === undefined)
    return `its table ${String(object.table)} would become ${flatTable(object.table)} in the scratch SQLite database (which has no schemas), a table another object already uses`;
  const groups: Record<string, GroupDefinition> = {};
  for (const [name, group] of Object.entries(object.groups ?? {})) {
    const groupTable = rename(group.table);
    if (groupTable === undefined)
      return `the table ${String(group.table)} of its group ${name} would become ${flatTable(group.table)} in the scratch SQLite database (which has no schemas), a table an object already uses`;
    groups[name] = { ...group, table: groupTable };
  }
  return { ...object, table, ...(object.groups === undefined ? {} : { groups }) };
}

/** Table names of one scratch file, each given once. */
class UniqueNames {
  private readonly taken = new Set<string>();

  claim(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.taken.has(name.toLowerCase()); n += 1) name = `${wanted}_${n}`;
    this.taken.add(name.toLowerCase());
    return name;
  }
}

/** A column name not among `fields`: `wanted`, else `wanted_2`, … */
function freeColumn(wanted: string, fields: Readonly<Record<string, unknown>>): string {
  const taken = new Set(Object.keys(fields).map((name) => name.toLowerCase()));
  let name = wanted;
  for (let n = 2; taken.has(name.toLowerCase()); n += 1) name = `${wanted}_${n}`;
  return name;
}

/** An object of another connector as sql tables of its own; the reason when its groups cannot be. */
function ownTables(name: string, object: ObjectDefinition, names: UniqueNames): ObjectDefinition | string {
  const groups = Object.entries(object.groups ?? {});
  if (groups.length > 0 && object.key.length !== 1)
    return `it has typed groups (${groups.map(([group]) => group).join(', ')}) and a key of ${object.key.length} fields (${object.key.join(', ')}); the sql connector, which the scratch SQLite database is reached with, joins group entries on a single key field`;
  const sqlGroups: Record<string, GroupDefinition> = {};
  for (const [groupName, group] of groups) {
    const foreignKey = freeColumn('parent_key', group.fields);
    sqlGroups[groupName] = {
      ...(group.description === undefined ? {} : { description: group.description }),
      types: [...group.types],
      fields: group.fields,
      table: names.claim(`${name}_${groupName}`),
      foreignKey,
      typeField: freeColumn('type', { ...group.fields, [foreignKey]: true }),
    };
  }
  return {
    ...(object.description === undefined ? {} : { description: object.description }),
    key: [...object.key],
    fields: object.fields,
    ...(object.readOnly === undefined ? {} : { readOnly: object.readOnly }),
    table: names.claim(name),
    ...(groups.length === 0 ? {} : { groups: sqlGroups }),
  };
}

/** The definition with no read-only system, object or field, no required field and no length limit. */
function writable(definition: SystemDefinition): SystemDefinition {
  const fields = (declared: ObjectDefinition['fields']): ObjectDefinition['fields'] =>
    Object.fromEntries(Object.entries(declared).map(([name, field]) => [name, { type: field.type }]));
  const objects = Object.fromEntries(
    Object.entries(definition.objects).map(([name, object]) => [
      name,
      {
        ...object,
        readOnly: false,
        fields: fields(object.fields),
        ...(object.groups === undefined
          ? {}
          : {
              groups: Object.fromEntries(
                Object.entries(object.groups).map(([groupName, group]) => [groupName, { ...group, fields: fields(group.fields) }]),
              ),
            }),
      },
    ]),
  );
  return { ...definition, readOnly: false, objects };
}
