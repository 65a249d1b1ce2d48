/** One numbered migration, defined in code (no files are globbed at run time). */
import type { Knex } from 'knex';

export interface Migration {
  /** `NNN-what-it-does`; the number orders the migrations and never changes once released. */
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}
