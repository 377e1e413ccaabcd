import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { createDatabase, createSecretBox, type Database, type SecretBox } from '@engram/db';
import { createTemporalClient } from '@engram/temporal/client';
import { createWorker } from '@engram/temporal/worker';
import { buildApp, createNotificationHub, createServices, parseApiConfig, type BaseProvider } from '@engram/api';
import { createTelemetry, type Telemetry } from '@engram/integrations/telemetry';
import type { BenchEndpoints } from './infra.js';
import { loopbackEgress } from '@engram/testing/egress';
import { sandboxedStdio } from '@engram/testing/mcp-stdio';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORKER_ENTRY = fileURLToPath(new URL('../temporal/src/worker-main.ts', import.meta.url));
const NAMESPACE = 'default';

export type WorkerPlacement = 'in-process' | 'child-process';

/**
 * SQL statements sent so far (transaction BEGIN/COMMIT included): the API's, the API's with billing on (its own pool),
 * and the worker's and of those the metering ones (`meterStep`) when the worker runs in this process.
 */
export type QueryCounts = { api: number; billedApi: number; worker: number | null; metering: number | null };

export type BenchStack = {
  baseUrl: string;
  /** The same API with ENGRAM_BILLING=on (tiers, quotas and credits enforced), on the same database and worker. */
  billedBaseUrl: string;
  apiKey: string;
  organizationId: string;
  /** The API's pool; the bench seeds and inspects data through it. */
  db: Database;
  temporal: Client;
  /** The task queue the stack's worker polls. */
  taskQueue: string;
  /** The worker process, when it runs in one, so its CPU time can be read. */
  workerPid: number | null;
  queryCounts(): QueryCounts;
  stop(): Promise<void>;
};

/** The statements sent between two readings, per unit of work (a send). */
export function queriesPer(before: QueryCounts, after: QueryCounts, units: number): QueryCounts {
  const per = (from: number | null, to: number | null) => (from === null || to === null ? null : (to - from) / units);
  return {
    api: (after.api - before.api) / units,
    billedApi: (after.billedApi - before.billedApi) / units,
    worker: per(before.worker, after.worker),
    metering: per(before.metering, after.metering),
  };
}

type RunningWorker = { pid: number | null; queryCount(): number | null; meteringCount(): number | null; stop(): Promise<void> };

function countQueries(db: Database, only: (sql: string) => boolean = () => true): () => number {
  let count = 0;
  db.on('query', (query: { sql: string }) => {
    if (only(query.sql)) count += 1;
  });
  return () => count;
}

/** `meterStep`'s one statement: the step's price, its ledger entry, the step's tid and the balance. */
const isMeteringStatement = (sql: string) => sql.includes('insert into transactions') && sql.includes('on conflict (step_id)');

async function startInProcessWorker(
  endpoints: BenchEndpoints,
  taskQueue: string,
  baseProviders: BaseProvider[],
  secrets: SecretBox,
): Promise<RunningWorker> {
  // A pool of its own with the production default size, as the worker process would have.
  const db = createDatabase({ url: endpoints.databaseUrl });
  // Spans of runs, steps and model calls, stored in PostgreSQL for the console, as worker-main.ts records them.
  const telemetry = createTelemetry({ db, serviceName: 'engram-worker', recordContent: false });
  const queryCount = countQueries(db);
  const meteringCount = countQueries(db, isMeteringStatement);
  const { worker, connection } = await createWorker({
    address: endpoints.temporalAddress,
    namespace: NAMESPACE,
    taskQueue,
    workflowBundlePath: endpoints.workflowBundlePath,
    activityDeps: { db, baseProviders, secrets, egress: loopbackEgress(), mcpStdio: sandboxedStdio(loopbackEgress()) },
    telemetry,
  });
  const running = worker.run();
  return {
    pid: null,
    queryCount,
    meteringCount,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await telemetry.shutdown();
      await db.destroy();
    },
  };
}

function startWorkerProcess(env: NodeJS.ProcessEnv): RunningWorker {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', WORKER_ENTRY], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid ?? null,
    queryCount: () => null,
    meteringCount: () => null,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/**
 * The platform as `npm start` composes it (api/src/server.ts, temporal/src/worker-main.ts), with the
 * test stack's shortcuts removed: production pool sizes and stream settings, the spans of every request, run, step
 * and model call recorded in PostgreSQL (metering is always on), and a worker that is either in this process or a
 * real worker process. Everything listens on loopback.
 */
export async function startBenchStack(
  endpoints: BenchEndpoints,
  options: { baseProviders: BaseProvider[]; workerPlacement: WorkerPlacement },
): Promise<BenchStack> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const stopOne of stops.splice(0).reverse()) await stopOne();
  };

  try {
    const taskQueue = `bench-${randomBytes(4).toString('hex')}`;
    const secretKey = randomBytes(32).toString('base64');
    const secrets = createSecretBox(secretKey);

    const db = createDatabase({ url: endpoints.databaseUrl });
    stops.push(() => db.destroy());
    const apiQueryCount = countQueries(db);
    // The API traces each request and carries its trace into the run's workflow, as api/src/server.ts does.
    const telemetry: Telemetry = createTelemetry({ db, serviceName: 'engram-api', recordContent: false });
    stops.push(() => telemetry.shutdown());
    const temporal = await createTemporalClient({ address: endpoints.temporalAddress, namespace: NAMESPACE, tracer: telemetry.tracer });
    stops.push(() => temporal.connection.close());
    const notifications = await createNotificationHub({ databaseUrl: endpoints.databaseUrl });
    stops.push(() => notifications.close());
    const services = createServices({ db, temporal, taskQueue, secrets, baseProviders: options.baseProviders, egress: loopbackEgress(), mcpStdio: sandboxedStdio(loopbackEgress()), notifications });
    const app = await buildApp({
      config: { ...parseApiConfig({}), port: 0, logLevel: 'silent', streamPingIntervalMs: 20_000 },
      services,
      logger: false,
      tracer: telemetry.tracer,
    });
    const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    stops.push(() => app.close());

    // The hosted product's API beside it: the same database and task queue, its own pool so its statements count apart.
    const billedDb = createDatabase({ url: endpoints.databaseUrl });
    stops.push(() => billedDb.destroy());
    const billedApiQueryCount = countQueries(billedDb);
    const billedServices = createServices({ db: billedDb, temporal, taskQueue, secrets, baseProviders: options.baseProviders, egress: loopbackEgress(), mcpStdio: sandboxedStdio(loopbackEgress()), notifications, billingMode: 'on' });
    const billedApp = await buildApp({
      config: { ...parseApiConfig({ ENGRAM_BILLING: 'on' }), port: 0, logLevel: 'silent', streamPingIntervalMs: 20_000 },
      services: billedServices,
      logger: false,
      tracer: telemetry.tracer,
    });
    const billedBaseUrl = await billedApp.listen({ port: 0, host: '127.0.0.1' });
    stops.push(() => billedApp.close());

    const worker =
      options.workerPlacement === 'in-process'
        ? await startInProcessWorker(endpoints, taskQueue, options.baseProviders, secrets)
        : startWorkerProcess({
            DATABASE_URL: endpoints.databaseUrl,
            TEMPORAL_ADDRESS: endpoints.temporalAddress,
            TEMPORAL_NAMESPACE: NAMESPACE,
            TEMPORAL_TASK_QUEUE: taskQueue,
            ENGRAM_WORKFLOW_BUNDLE: endpoints.workflowBundlePath,
            ENGRAM_SECRET_KEY: secretKey,
            ...Object.fromEntries(
              options.baseProviders
                .filter((provider) => provider.providerType === 'openai')
                .flatMap((provider) => [['OPENAI_API_KEY', provider.apiKey ?? 'bench'], ['OPENAI_BASE_URL', provider.baseUrl]]),
            ),
          });
    stops.push(() => worker.stop());

    const tenant = await services.organizations.createWithAdmin({ name: 'bench', adminName: 'bench admin' });
    // With billing on, the largest plan and a balance no bench run spends, so nothing is refused: what is measured is
    // the cost of checking, not a refusal.
    await db('organizations').where('id', tenant.organizationId).update({ billing_tier: 'enterprise' });
    await services.billing.addCredits(tenant.organizationId, { amount: 100_000_000, note: 'bench' });
    return {
      baseUrl,
      billedBaseUrl,
      apiKey: tenant.apiKey.key,
      organizationId: tenant.organizationId,
      db,
      temporal,
      taskQueue,
      workerPid: worker.pid,
      queryCounts: () => ({ api: apiQueryCount(), billedApi: billedApiQueryCount(), worker: worker.queryCount(), metering: worker.meteringCount() }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
