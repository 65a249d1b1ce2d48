/** The `sql` connector module: its spec (the Knex-backed runtime joins it in the connector layer). */
export { spec } from './spec.js';
