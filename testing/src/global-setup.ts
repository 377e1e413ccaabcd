import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import {
  createDatabase,
  createDatabaseIfMissing,
  databaseUrlFor,
  dropDatabase,
  migrateToLatest,
  resolvePostgresServer,
} from '@engram/db';
import { buildWorkflowBundle } from '@engram/temporal/bundle';
import { ensureTemporalCli, startDevServer } from '@engram/temporal/dev-server';
import { startOnReservedPorts } from './ports.js';

declare module 'vitest' {
  interface ProvidedContext {
    databaseUrl: string;
    /** A server URL for tests that create databases of their own. */
    postgresAdminUrl: string;
    temporalAddress: string;
    workflowBundlePath: string;
    /** The deployment's secret key: one per run, as a deployment has one, so every stack can read what another wrote. */
    secretKey: string;
  }
}

/**
 * One PostgreSQL database and one Temporal dev server per test run, shared by every test file.
 * Files isolate themselves by organization (data) and task queue (workers).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'engram-test-'));
  const pgServer = await resolvePostgresServer({
    databaseUrl: process.env.DATABASE_URL,
    dataDir: path.join(process.cwd(), '.data'),
  });
  const databaseName = `engram_test_${randomBytes(4).toString('hex')}`;
  await createDatabaseIfMissing(pgServer.adminUrl, databaseName);
  const databaseUrl = databaseUrlFor(pgServer.adminUrl, databaseName);
  const db = createDatabase({ url: databaseUrl, pool: { max: 1 } });
  await migrateToLatest(db);
  await db.destroy();

  const cliPath = ensureTemporalCli({ log: (line) => console.log(line) });
  // The dev server hands its frontend port to its own services: it is told one rather than taking port 0.
  const temporal = await startOnReservedPorts(1, ([port]) => startDevServer({ cliPath, port: port!, logFile: path.join(scratch, 'temporal.log') }));

  const workflowBundlePath = path.join(scratch, 'workflow-bundle.js');
  writeFileSync(workflowBundlePath, (await buildWorkflowBundle()).code);

  project.provide('databaseUrl', databaseUrl);
  project.provide('postgresAdminUrl', pgServer.adminUrl);
  project.provide('temporalAddress', temporal.address);
  project.provide('workflowBundlePath', workflowBundlePath);
  project.provide('secretKey', randomBytes(32).toString('base64'));

  return async () => {
    await temporal.stop();
    await dropDatabase(pgServer.adminUrl, databaseName);
    await pgServer.stop();
    rmSync(scratch, { recursive: true, force: true });
  };
}
