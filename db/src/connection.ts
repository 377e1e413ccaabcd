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

/**
 * Runs independent reads at once on the pool; in a transaction, whose queries share one connection, one after another.
 */
export async function readTogether<T extends readonly unknown[]>(db: Knex, reads: { [K in keyof T]: () => PromiseLike<T[K]> }): Promise<T> {
  if (!('isTransaction' in db && db.isTransaction === true)) return (await Promise.all(reads.map((read) => read()))) as unknown as T;
  const results: unknown[] = [];
  for (const read of reads) results.push(await read());
  return results as unknown as T;
}
