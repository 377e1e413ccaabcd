import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Client } from '@temporalio/client';
import { createDatabase, createSecretBox, type Database } from '@engram/db';
import { createTemporalClient } from '@engram/temporal/client';
import { createWorker, type EngramWorker } from '@engram/temporal/worker';
import { createTelemetry, type Telemetry } from '@engram/integrations/telemetry';
import { createPaymentGateway } from '@engram/integrations/payments';
import { createEgressPolicy, type EgressRefusal, type EgressResolver } from '@engram/integrations/egress';
import { createMcpStdioPolicy } from '@engram/integrations/mcp';
import { STDIO_READABLE_DIR } from './mcp-stdio.js';
import {
  buildApp,
  createApiKeyService,
  createNotificationHub,
  createOrganizationService,
  createServices,
  createTierLimitGuard,
  parseApiConfig,
  type AppServices,
  type BaseProvider,
} from '@engram/api';
import type { CreatedTenant } from '@engram/api';
import { profiled } from './profile/spans.js';

/** The web_search provider's variables, which a worker process of the test's own gets as the in-process one does. */
const WEB_SEARCH_ENV = /^(ENGRAM_WEB_SEARCH_PROVIDER|EXA_|TAVILY_|BRAVE_SEARCH_|SEARXNG_)/;

export type TestStack = {
  baseUrl: string;
  apiKey: string;
  tenant: CreatedTenant;
  db: Database;
  temporal: Client;
  services: AppServices;
  /** What a worker process needs to join this stack (for tests that run and kill workers). */
  workerEnv: NodeJS.ProcessEnv;
  app: FastifyInstance;
  taskQueue: string;
  /** Present when the stack was started with `telemetry`: flush it to read the span store. */
  telemetry: Telemetry | undefined;
  /** Every destination the egress policy refused, as the API and the in-process worker logged it. */
  egressRefusals: EgressRefusal[];
  /** Another organization with its own key, for tenant-isolation checks. */
  createTenant(name?: string): Promise<CreatedTenant>;
  stop(): Promise<void>;
};

export type TestStackOptions = {
  /** Base model providers the API and the worker see (tests point them at a scripted model server). */
  baseProviders?: BaseProvider[];
  /** Run a worker inside the test process (default). Tests that kill workers run their own processes. */
  inProcessWorker?: boolean;
  pingIntervalMs?: number;
  /**
   * Variables of the API's configuration (`parseApiConfig`), such as `TEMPORAL_UI_URL`. Unless they set
   * ENGRAM_EGRESS_ALLOW or ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION, every organization may reach loopback, where the
   * tests' model, MCP and callback servers listen; the stack's `tenant` is the first-start organization. Unless they
   * set ENGRAM_MCP_STDIO, every organization may run stdio MCP servers,
   * which see the bundled stdio fixture's folder unless ENGRAM_MCP_STDIO_READ_ONLY_PATHS says otherwise.
   */
  apiEnv?: NodeJS.ProcessEnv;
  /** How the egress policy resolves host names (a test's DNS that changes its answer); the system resolver otherwise. */
  egressResolve?: EgressResolver;
  /** Trace the API, the Temporal client and the in-process worker into the span store (and to `otlpEndpoint`). */
  telemetry?: { otlpEndpoint?: string; recordContent?: boolean };
  /** A Temporal frontend of the test's own (the scale-out test's cluster) instead of the run's dev server. */
  temporalAddress?: string;
};

/**
 * The real platform for one test file: the API listening on loopback, a Temporal client and a worker
 * on a task queue of its own, against the run's PostgreSQL database and Temporal dev server.
 */
export function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  return profiled('stack start', () => startStack(options));
}

async function startStack(options: TestStackOptions): Promise<TestStack> {
  const db = createDatabase({ url: inject('databaseUrl'), pool: { max: 5 } });
  const temporalAddress = options.temporalAddress ?? inject('temporalAddress');
  const telemetry = options.telemetry
    ? createTelemetry({ db, serviceName: 'engram-test', otlpEndpoint: options.telemetry.otlpEndpoint, recordContent: options.telemetry.recordContent ?? false, exportDelayMs: 100 })
    : undefined;
  const temporal = await createTemporalClient({ address: temporalAddress, namespace: 'default', tracer: telemetry?.tracer });
  const taskQueue = `test-${randomBytes(6).toString('hex')}`;
  const secretKey = inject('secretKey');
  const secrets = createSecretBox(secretKey);
  const baseProviders = options.baseProviders ?? [];
  const notifications = await createNotificationHub({ databaseUrl: inject('databaseUrl') });
  const apiEnv = options.apiEnv ?? {};
  const egressEnv = apiEnv.ENGRAM_EGRESS_ALLOW || apiEnv.ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION ? {} : { ENGRAM_EGRESS_ALLOW: '127.0.0.0/8,::1' };
  const stdioEnv = {
    ...(apiEnv.ENGRAM_MCP_STDIO ? {} : { ENGRAM_MCP_STDIO: 'all' }),
    ...(apiEnv.ENGRAM_MCP_STDIO_READ_ONLY_PATHS ? {} : { ENGRAM_MCP_STDIO_READ_ONLY_PATHS: STDIO_READABLE_DIR }),
  };
  const apiConfig = parseApiConfig({ ...apiEnv, ...egressEnv, ...stdioEnv });
  const payments = createPaymentGateway(apiConfig.payments);
  const tenant = await createOrganizationService({ db, apiKeys: createApiKeyService({ db, limits: createTierLimitGuard({ mode: 'off' }) }) }).createWithAdmin({
    name: `org ${randomBytes(3).toString('hex')}`,
    adminName: 'test admin',
  });
  const egressRefusals: EgressRefusal[] = [];
  const egress = createEgressPolicy({
    ...apiConfig.egress,
    firstOrganizationId: tenant.organizationId,
    onRefused: (refusal) => egressRefusals.push(refusal),
    ...(options.egressResolve ? { resolve: options.egressResolve } : {}),
  });
  const mcpStdio = createMcpStdioPolicy({ ...apiConfig.mcpStdio, firstOrganizationId: tenant.organizationId, egress });
  const services = createServices({
    db,
    temporal,
    taskQueue,
    secrets,
    baseProviders,
    egress,
    webSearch: apiConfig.webSearch,
    mcpStdio,
    notifications,
    billingMode: apiConfig.billingMode,
    adminEmails: apiConfig.adminEmails,
    cloudAccessCodes: apiConfig.cloudAccessCodes,
    payments,
  });
  const app = await profiled('stack: build api', () => buildApp({
    config: { ...apiConfig, port: 0, logLevel: 'silent', streamPingIntervalMs: options.pingIntervalMs ?? 20_000 },
    services,
    logger: false,
    tracer: telemetry?.tracer,
  }));
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });

  let worker: EngramWorker | undefined;
  let workerRun: Promise<void> | undefined;
  if (options.inProcessWorker ?? true) {
    worker = await profiled('stack: create worker', () => createWorker({
      address: temporalAddress,
      namespace: 'default',
      taskQueue,
      workflowBundlePath: inject('workflowBundlePath'),
      activityDeps: { db, baseProviders, secrets, payments, egress, mcpStdio, webSearch: apiConfig.webSearch },
      telemetry,
    }));
    workerRun = worker.worker.run();
  }

  const createTenant = (name = `org ${randomBytes(3).toString('hex')}`) =>
    services.organizations.createWithAdmin({ name, adminName: 'test admin' });

  return {
    baseUrl,
    apiKey: tenant.apiKey.key,
    tenant,
    db,
    temporal,
    services,
    app,
    taskQueue,
    telemetry,
    egressRefusals,
    workerEnv: {
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ENGRAM_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      ENGRAM_SECRET_KEY: secretKey,
      ...Object.fromEntries(
        Object.entries({ ...apiEnv, ...egressEnv, ...stdioEnv }).filter(
          ([name]) => name.startsWith('STRIPE_') || name.startsWith('ENGRAM_EGRESS_') || name.startsWith('ENGRAM_MCP_') || WEB_SEARCH_ENV.test(name),
        ),
      ),
      ...Object.fromEntries(baseProviders.filter((provider) => provider.providerType === 'openai').flatMap((provider) => [['OPENAI_API_KEY', provider.apiKey ?? 'test'], ['OPENAI_BASE_URL', provider.baseUrl]])),
    },
    createTenant,
    stop: () => profiled('stack stop', async () => {
      await app.close();
      if (worker && workerRun) {
        worker.worker.shutdown();
        await workerRun;
        await worker.connection.close();
      }
      await notifications.close();
      await temporal.connection.close();
      await telemetry?.shutdown();
      await db.destroy();
    }),
  };
}
