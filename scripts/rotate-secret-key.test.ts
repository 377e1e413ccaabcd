import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createDatabase,
  createDatabaseIfMissing,
  createSecretBox,
  databaseUrlFor,
  dropDatabase,
  migrateToLatest,
  newId,
  Organization,
  Provider,
  type Database,
} from '@engram/db';

/**
 * The rotation script against a database of its own (the shared test database holds secrets sealed
 * with other test files' keys, which this rotation must not touch).
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const databaseName = `engram_rotation_${randomBytes(4).toString('hex')}`;
let databaseUrl: string;
let db: Database;

beforeAll(async () => {
  await createDatabaseIfMissing(inject('postgresAdminUrl'), databaseName);
  databaseUrl = databaseUrlFor(inject('postgresAdminUrl'), databaseName);
  db = createDatabase({ url: databaseUrl, pool: { max: 1 } });
  await migrateToLatest(db);
});

afterAll(async () => {
  await db?.destroy();
  await dropDatabase(inject('postgresAdminUrl'), databaseName);
});

const rotate = (env: NodeJS.ProcessEnv) => run(process.execPath, ['--import', 'tsx', 'scripts/rotate-secret-key.ts'], { cwd: ROOT, env: { ...process.env, ...env } });

describe('rotating ENGRAM_SECRET_KEY', () => {
  it('re-seals every stored secret with the new key: the new key alone opens them, the old one no longer does', async () => {
    const oldKey = randomBytes(32).toString('base64');
    const newKey = randomBytes(32).toString('base64');
    const organizationId = newId('organization');
    await Organization.query(db).insert({ id: organizationId, name: 'rotation' });
    const providerId = newId('provider');
    await Provider.query(db).insert({ id: providerId, organizationId, name: 'rotated', providerType: 'openai', apiKeyEnc: createSecretBox(oldKey).encrypt('sk-rotate-me') });

    const { stdout } = await rotate({ DATABASE_URL: databaseUrl, ENGRAM_PREVIOUS_SECRET_KEY: oldKey, ENGRAM_SECRET_KEY: newKey });
    expect(stdout).toMatch(/re-sealed 1 secrets in \d+ columns/);

    const sealed = (await Provider.query(db).findById(providerId))!.apiKeyEnc!;
    expect(createSecretBox(newKey).decrypt(sealed)).toBe('sk-rotate-me');
    expect(() => createSecretBox(oldKey).decrypt(sealed)).toThrow();
  });

  it('changes nothing when a secret opens with neither key', async () => {
    const before = await Provider.query(db).select('apiKeyEnc');
    await expect(rotate({ DATABASE_URL: databaseUrl, ENGRAM_PREVIOUS_SECRET_KEY: 'wrong', ENGRAM_SECRET_KEY: 'also wrong' })).rejects.toThrow();
    expect(await Provider.query(db).select('apiKeyEnc')).toEqual(before);
  });

  it('refuses to start without the old key', async () => {
    await expect(rotate({ DATABASE_URL: databaseUrl, ENGRAM_PREVIOUS_SECRET_KEY: '', ENGRAM_SECRET_KEY: 'new' })).rejects.toThrow(/ENGRAM_PREVIOUS_SECRET_KEY/);
  });
});
