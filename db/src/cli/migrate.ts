import { createDatabase } from '../connection.js';
import { migrateToLatest } from '../migrate.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL: required to run migrations');
  process.exit(1);
}
const db = createDatabase({ url, pool: { max: 1 } });
const applied = await migrateToLatest(db);
console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
await db.destroy();
