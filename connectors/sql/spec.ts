/**
 * The `sql` connector's spec: tables of SQLite, PostgreSQL and MariaDB/MySQL through Knex.
 * Objects map to tables with key columns; typed object groups map to a child table with a
 * foreign key and a type column.
 */
import type { ConnectorSpec } from '../../definitions/connector-spec.js';
import { clientNames } from './engines/index.js';

const identifier = {
  type: 'string',
  pattern: '^[A-Za-z_][A-Za-z0-9_$]*(\\.[A-Za-z_][A-Za-z0-9_$]*)?$',
};

export const spec: ConnectorSpec = Object.freeze({
  name: 'sql',
  description: 'Relational databases through Knex: SQLite (sqlite3), PostgreSQL (pg), MariaDB/MySQL (mysql2).',
  connectionSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['client'],
    description: 'How to reach the database. SQLite needs filename; PostgreSQL and MariaDB need url, or host and database.',
    properties: {
      client: {
        enum: [...clientNames],
        description: 'Database kind: sqlite3, pg (also postgres, postgresql) or mysql2 (also mysql, mariadb).',
      },
      filename: {
        type: 'string',
        minLength: 1,
        description: "SQLite: database file, relative to the definitions directory (not the working directory), or ':memory:'.",
      },
      url: {
        type: 'string',
        pattern: '^(postgres|postgresql|mysql|mariadb)://',
        description:
          'PostgreSQL or MariaDB connection URL, e.g. postgres://user@host:5432/db. Put it in ${env:NAME} when it holds a password.',
      },
      host: { type: 'string', minLength: 1, description: 'Database host name.' },
      port: {
        anyOf: [
          { type: 'integer', minimum: 1, maximum: 65535 },
          { type: 'string', pattern: '^[0-9]{1,5}$' },
        ],
        description: 'Database port.',
      },
      user: { type: 'string', description: 'Database user.' },
      password: { type: 'string', description: 'Database password; use ${env:NAME} or ${file:path}.' },
      database: { type: 'string', minLength: 1, description: 'Database name.' },
      searchPath: { type: 'string', minLength: 1, description: 'PostgreSQL: schema to use, e.g. public.' },
      ssl: { type: 'boolean', default: false, description: 'Connect over TLS.' },
      pool: {
        type: 'object',
        additionalProperties: false,
        description:
          "Sizes of each of this system's two pools: one for writes, one for reads and counts. Free queries have a pool of their own, of limits.concurrentQueries connections.",
        properties: {
          min: { type: 'integer', minimum: 0, default: 0, description: 'Connections kept open when idle.' },
          max: { type: 'integer', minimum: 1, default: 10, description: 'Most connections at once.' },
        },
      },
    },
    allOf: [
      {
        if: { properties: { client: { const: 'sqlite3' } }, required: ['client'] },
        then: { required: ['filename'] },
        else: { anyOf: [{ required: ['url'] }, { required: ['host', 'database'] }] },
      },
    ],
  },
  objectProperties: {
    table: { ...identifier, description: 'Table (or schema.table) holding the records.' },
  },
  requiredObjectProperties: ['table'],
  groupProperties: {
    table: { ...identifier, description: 'Child table holding the group entries.' },
    foreignKey: { ...identifier, description: "Column of the child table referring to the parent record's key." },
    typeField: { ...identifier, default: 'type', description: 'Column of the child table holding the group type.' },
  },
  requiredGroupProperties: ['table', 'foreignKey'],
  capabilities: Object.freeze({
    filterPushDown: true,
    limit: true,
    skip: true,
    order: true,
    count: true,
    typedGroups: true,
    transactions: true,
    readOnlyQuery: true,
  }),
});
