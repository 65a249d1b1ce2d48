/**
 * The tables of a scratch system (scratch-system.ts), created in a new SQLite file from the sql
 * connector's own model of the definition (connectors/sql/object-model.ts: each object's table,
 * each typed group's child table, foreign key and type column), so the connector finds exactly
 * the tables and columns it reads and writes.
 *
 * Columns take Knex's type for each field type, which the sql connector reads and writes SQLite
 * values of (value-codec.ts, records/field-values.ts): text, integer, double, boolean (0/1), date
 * and datetime (ISO text), json (JSON text). Key columns are NOT NULL and the primary key; a key of
 * one Integer field is SQLite's rowid, generated when a create leaves it out, as a database
 * identity column would be. A group table's primary key is (foreign key, type): one entry per type
 * and record, as records carry them. Two objects on one table share it, with the columns of both.
 */
import knexFactory, { type Knex } from 'knex';
import type { FieldType, SystemDefinition } from '../../../definitions/types.js';
import { buildObjects, type SqlObject } from '../../../connectors/sql/object-model.js';

interface TablePlan {
  columns: Map<string, FieldType>;
  key: string[];
}

const addColumn: Record<FieldType, (table: Knex.CreateTableBuilder, name: string) => Knex.ColumnBuilder> = {
  String: (table, name) => table.text(name),
  Integer: (table, name) => table.integer(name),
  Number: (table, name) => table.double(name),
  Boolean: (table, name) => table.boolean(name),
  Date: (table, name) => table.date(name),
  DateTime: (table, name) => table.datetime(name),
  Json: (table, name) => table.json(name),
};

/** Every table the system's objects and groups use, with their columns and keys (the first object to name a table decides its key). */
function tablePlans(objects: Iterable<SqlObject>): Map<string, TablePlan> {
  const plans = new Map<string, TablePlan>();
  const plan = (table: string, key: readonly string[]): TablePlan => {
    let found = plans.get(table);
    if (found === undefined) {
      found = { columns: new Map(), key: [...key] };
      plans.set(table, found);
    }
    return found;
  };
  for (const object of objects) {
    const table = plan(object.table, object.key);
    for (const field of object.fields.values()) if (!table.columns.has(field.name)) table.columns.set(field.name, field.type);
    // A composite key cannot carry groups (the connector says so when they are used); its child table is still made.
    const parentType = object.key.length === 1 ? (object.fields.get(object.key[0]!)?.type ?? 'String') : 'String';
    for (const group of object.groups.values()) {
      const child = plan(group.table, [group.foreignKey, group.typeField]);
      if (!child.columns.has(group.foreignKey)) child.columns.set(group.foreignKey, parentType);
      if (!child.columns.has(group.typeField)) child.columns.set(group.typeField, 'String');
      for (const field of group.fields.values()) if (!child.columns.has(field.name)) child.columns.set(field.name, field.type);
    }
  }
  return plans;
}

/** Creates the SQLite file `filename` with the tables of `system` (a sql system on that file). */
export async function createScratchTables(filename: string, system: SystemDefinition): Promise<void> {
  const knex = knexFactory({ client: 'sqlite3', connection: { filename }, useNullAsDefault: true });
  try {
    for (const [name, plan] of tablePlans(buildObjects(system).values())) {
      // The loader checks that key fields are declared; a stray one is still a column.
      for (const column of plan.key) if (!plan.columns.has(column)) plan.columns.set(column, 'String');
      await knex.schema.createTable(name, (table) => {
        const [only, ...more] = plan.key;
        const rowid = only !== undefined && more.length === 0 && plan.columns.get(only) === 'Integer';
        for (const [column, type] of plan.columns) {
          if (rowid && column === only) table.increments(column, { primaryKey: true });
          else if (plan.key.includes(column)) addColumn[type](table, column).notNullable();
          else addColumn[type](table, column);
        }
        if (!rowid && plan.key.length > 0) table.primary(plan.key);
      });
    }
  } finally {
    await knex.destroy();
  }
}
