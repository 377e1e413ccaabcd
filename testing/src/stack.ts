import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Client } from '@temporalio/client';
import { createDatabase, type Database } from '@engram/db';
import { createTemporalClient, createWorker, type EngramWorker } from '@engram/temporal';
import { buildApp, createServices, ENGRAM_VERSION, type AppServices } from '@engram/api';
import type { CreatedTenant } from '@engram/api/services/tenancy/organizations';

export type TestStack = {
  baseUrl: string;
  apiKey: string;
  tenant: CreatedTenant;
  db: Database;
  temporal: Client;
  services: AppServices;
  app: FastifyInstance;
  taskQueue: string;
  /** Another organization with its own key, for tenant-isolation checks. */
  createTenant(name?: string): Promise<CreatedTenant>;
  stop(): Promise<void>;
};

export type TestStackOptions = {
  /** Run a worker inside the test process (default). Tests that kill workers run their own processes. */
  inProcessWorker?: boolean;
};

/**
 * The real platform for one test file: the API listening on loopback, a Temporal client and a worker
 * on a task queue of its own, against the run's PostgreSQL database and Temporal dev server.
 */
export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const db = createDatabase({ url: inject('databaseUrl'), pool: { max: 5 } });
  const temporal = await createTemporalClient({ address: inject('temporalAddress'), namespace: 'default' });
  const taskQueue = `test-${randomBytes(6).toString('hex')}`;
  const services = createServices({ db, temporal, taskQueue });
  const app = await buildApp({
    config: { port: 0, host: '127.0.0.1', logLevel: 'silent', version: ENGRAM_VERSION },
    services,
    logger: false,
  });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });

  let worker: EngramWorker | undefined;
  let workerRun: Promise<void> | undefined;
  if (options.inProcessWorker ?? true) {
    worker = await createWorker({
      address: inject('temporalAddress'),
      namespace: 'default',
      taskQueue,
      workflowBundlePath: inject('workflowBundlePath'),
      activityDeps: { db },
    });
    workerRun = worker.worker.run();
  }

  const createTenant = (name = `org ${randomBytes(3).toString('hex')}`) =>
    services.organizations.createWithAdmin({ name, adminName: 'test admin' });
  const tenant = await createTenant();

  return {
    baseUrl,
    apiKey: tenant.apiKey.key,
    tenant,
    db,
    temporal,
    services,
    app,
    taskQueue,
    createTenant,
    async stop() {
      await app.close();
      if (worker && workerRun) {
        worker.worker.shutdown();
        await workerRun;
        await worker.connection.close();
      }
      await temporal.connection.close();
      await db.destroy();
    },
  };
}
