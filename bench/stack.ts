import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { createDatabase, createSecretBox, type Database, type SecretBox } from '@engram/db';
import { createTemporalClient, createWorker } from '@engram/temporal';
import { buildApp, createNotificationHub, createServices, parseApiConfig, type BaseProvider } from '@engram/api';
import type { BenchEndpoints } from './infra.js';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORKER_ENTRY = fileURLToPath(new URL('../temporal/src/worker-main.ts', import.meta.url));
const NAMESPACE = 'default';

export type WorkerPlacement = 'in-process' | 'child-process';

/** SQL statements sent so far (transaction BEGIN/COMMIT included); the worker's only when it runs in this process. */
export type QueryCounts = { api: number; worker: number | null };

export type BenchStack = {
  baseUrl: string;
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

type RunningWorker = { pid: number | null; queryCount(): number | null; stop(): Promise<void> };

function countQueries(db: Database): () => number {
  let count = 0;
  db.on('query', () => {
    count += 1;
  });
  return () => count;
}

async function startInProcessWorker(
  endpoints: BenchEndpoints,
  taskQueue: string,
  baseProviders: BaseProvider[],
  secrets: SecretBox,
): Promise<RunningWorker> {
  // A pool of its own with the production default size, as the worker process would have.
  const db = createDatabase({ url: endpoints.databaseUrl });
  const queryCount = countQueries(db);
  const { worker, connection } = await createWorker({
    address: endpoints.temporalAddress,
    namespace: NAMESPACE,
    taskQueue,
    workflowBundlePath: endpoints.workflowBundlePath,
    activityDeps: { db, baseProviders, secrets },
  });
  const running = worker.run();
  return {
    pid: null,
    queryCount,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
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
 * test stack's shortcuts removed: production pool sizes and stream settings, and a worker that is
 * either in this process or a real worker process. Everything listens on loopback.
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
    const temporal = await createTemporalClient({ address: endpoints.temporalAddress, namespace: NAMESPACE });
    stops.push(() => temporal.connection.close());
    const notifications = await createNotificationHub({ databaseUrl: endpoints.databaseUrl });
    stops.push(() => notifications.close());
    const services = createServices({ db, temporal, taskQueue, secrets, baseProviders: options.baseProviders, notifications });
    const app = await buildApp({
      config: { ...parseApiConfig({}), port: 0, logLevel: 'silent', streamPingIntervalMs: 20_000 },
      services,
      logger: false,
    });
    const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    stops.push(() => app.close());

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
    return {
      baseUrl,
      apiKey: tenant.apiKey.key,
      organizationId: tenant.organizationId,
      db,
      temporal,
      taskQueue,
      workerPid: worker.pid,
      queryCounts: () => ({ api: apiQueryCount(), worker: worker.queryCount() }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
