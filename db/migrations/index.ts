import type { Knex } from 'knex';
import * as tenancy from './20261121000000_tenancy.js';

type Migration = { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> };

/** Every migration, in order. Listed explicitly so the same code runs under tsx, vitest and bundlers. */
export const migrations: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['20261121000000_tenancy', tenancy],
];
