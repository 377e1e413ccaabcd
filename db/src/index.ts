export { createDatabase, type Database, type DatabaseOptions } from './connection.js';
export { migrateToLatest, rollbackAll } from './migrate.js';
export {
  resolvePostgresServer,
  createDatabaseIfMissing,
  dropDatabase,
  databaseUrlFor,
  canConnect,
  DatabaseUnavailableError,
  type PostgresServer,
} from './postgres-server.js';
export { newId, isId, idPattern, ID_PREFIXES, type IdKind } from './ids.js';
export * from './models/index.js';
