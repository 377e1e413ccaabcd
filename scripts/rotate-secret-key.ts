/**
 * Rotates ENGRAM_SECRET_KEY: re-seals every stored secret (provider keys, agent secrets, sandbox and
 * organization variables, MCP and OAuth credentials) with the new key, in one transaction.
 * Stop the API and every worker first, run
 *   DATABASE_URL=… ENGRAM_PREVIOUS_SECRET_KEY=<old key> ENGRAM_SECRET_KEY=<new key> node --import tsx scripts/rotate-secret-key.ts
 * then start them with the new key (and write it to .data/secret-key when npm start generated the old one).
 */
import { createDatabase, createSecretBox, resealSecrets } from '@engram/db';

const { DATABASE_URL: databaseUrl, ENGRAM_SECRET_KEY: newKey, ENGRAM_PREVIOUS_SECRET_KEY: previousKey } = process.env;
if (!databaseUrl || !newKey || !previousKey) {
  console.error('[engram] rotate-secret-key: DATABASE_URL, ENGRAM_PREVIOUS_SECRET_KEY (the old key) and ENGRAM_SECRET_KEY (the new key) are required');
  process.exit(1);
}

const db = createDatabase({ url: databaseUrl, pool: { max: 1 } });
try {
  const report = await resealSecrets(db, createSecretBox(newKey, [previousKey]));
  console.log(`[engram] re-sealed ${report.values} secrets in ${report.columns.length} columns with the new key`);
} finally {
  await db.destroy();
}
