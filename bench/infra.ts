import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
import { startOnReservedPorts } from '@engram/testing/ports';

export type BenchEndpoints = {
  databaseUrl: string;
  temporalAddress: string;
  workflowBundlePath: string;
};

export type BenchInfrastructure = BenchEndpoints & {
  postgresKind: string;
  temporalServerPid: number | null;
  stop(): Promise<void>;
};

/**
 * What the test harness's global setup provides, for one bench run: a throwaway database on the
 * PostgreSQL server Engram would use, an in-memory headless Temporal dev server, and the workflow bundle.
 */
export async function startBenchInfrastructure(options: {
  configuredDatabaseUrl: string | undefined;
  dataDir: string;
  log: (line: string) => void;
}): Promise<BenchInfrastructure> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'engram-bench-'));
  const stops: Array<() => Promise<void>> = [async () => rmSync(scratch, { recursive: true, force: true })];
  const stop = async () => {
    for (const stopOne of stops.splice(0).reverse()) await stopOne();
  };

  try {
    const pgServer = await resolvePostgresServer({ databaseUrl: options.configuredDatabaseUrl, dataDir: options.dataDir });
    stops.push(() => pgServer.stop());
    const databaseName = `engram_bench_${randomBytes(4).toString('hex')}`;
    await createDatabaseIfMissing(pgServer.adminUrl, databaseName);
    stops.push(() => dropDatabase(pgServer.adminUrl, databaseName));
    const databaseUrl = databaseUrlFor(pgServer.adminUrl, databaseName);
    const migrator = createDatabase({ url: databaseUrl, pool: { max: 1 } });
    await migrateToLatest(migrator);
    await migrator.destroy();
    options.log(`PostgreSQL (${pgServer.kind}): database ${databaseName}`);

    const cliPath = ensureTemporalCli({ log: options.log });
    const temporal = await startOnReservedPorts(1, ([port]) => startDevServer({ cliPath, port: port!, logFile: path.join(scratch, 'temporal.log') }));
    stops.push(() => temporal.stop());
    options.log(`Temporal dev server (in memory, headless): ${temporal.address}`);

    const workflowBundlePath = path.join(scratch, 'workflow-bundle.js');
    writeFileSync(workflowBundlePath, (await buildWorkflowBundle()).code);

    return {
      databaseUrl,
      temporalAddress: temporal.address,
      workflowBundlePath,
      postgresKind: pgServer.kind,
      temporalServerPid: temporal.process.pid ?? null,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
