import knexFactory, { type Knex } from 'knex';
import { knexSnakeCaseMappers } from 'objection';

export type Database = Knex;

export type DatabaseOptions = {
  url: string;
  pool?: { min?: number; max?: number };
};

/** One knex instance per process, created at the composition root and passed down. */
export function createDatabase(options: DatabaseOptions): Database {
  return knexFactory({
    client: 'pg',
    connection: { connectionString: options.url, connectionTimeoutMillis: 5000 },
    pool: { min: options.pool?.min ?? 0, max: options.pool?.max ?? 10 },
    ...knexSnakeCaseMappers(),
  });
}

/** Whether queries through `db` share one connection (a transaction), so they cannot run at once. */
export function isTransaction(db: Knex): db is Knex.Transaction {
  return 'isTransaction' in db && db.isTransaction === true;
}
