import { Runtime } from '@temporalio/worker';
import { createDatabase, createSecretBox, Organization } from '@engram/db';
import { createEgressPolicy, EgressConfigError, parseEgressConfig } from '@engram/integrations/egress';
import { parseBaseProviders } from '@engram/integrations/llm';
import { createMcpStdioPolicy, McpStdioConfigError, parseMcpStdioConfig } from '@engram/integrations/mcp';
import { describeSandboxIsolation, detectSandboxIsolation } from '@engram/integrations/sandbox';
import { createTelemetry, parseTelemetryConfig, TelemetryConfigError } from '@engram/integrations/telemetry';
import { createPaymentGateway, parsePaymentsConfig, PaymentsConfigError } from '@engram/integrations/payments';
import { createOutboxNotifier, createSmtpNotifier, NotifierConfigError, parseSmtpConfig } from '@engram/integrations/notifications';
import { parseTemporalConfig, ConfigError } from './config.js';
import { DEFAULT_BUNDLE_PATH } from './bundle.js';
import { createWorker } from './worker.js';
import { createStartupAnnouncer, createWorkerLogger } from './worker-log.js';

/** Worker process entry: the API and this process share only PostgreSQL and Temporal. */
async function main(): Promise<void> {
  const logOptions = { logLevel: process.env.LOG_LEVEL, write: (text: string) => process.stderr.write(text) };
  Runtime.install({ logger: createWorkerLogger(logOptions) });
  const temporal = parseTemporalConfig(process.env);
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new ConfigError('DATABASE_URL: required by the worker');
  if (!temporal.address) throw new ConfigError('TEMPORAL_ADDRESS: required by the worker');
  const secretKey = process.env.ENGRAM_SECRET_KEY;
  if (!secretKey) throw new ConfigError('ENGRAM_SECRET_KEY: required by the worker (it decrypts stored secrets)');
  const telemetryConfig = parseTelemetryConfig(process.env);
  // Found once, and said once: whether tools run in bubblewrap, unsandboxed (ENGRAM_UNSAFE_LOCAL_TOOLS), or not at all.
  const sandboxIsolation = await detectSandboxIsolation({ allowUnsafeLocalTools: temporal.unsafeLocalTools });
  const sandboxState = describeSandboxIsolation(sandboxIsolation);
  createStartupAnnouncer(logOptions)(sandboxState.level, sandboxState.message);
  const payments = parsePaymentsConfig(process.env);
  const smtp = parseSmtpConfig(process.env);
  const egressConfig = parseEgressConfig(process.env);
  const mcpStdioConfig = parseMcpStdioConfig(process.env);
  const db = createDatabase({ url: databaseUrl });
  const firstOrganizationId = await Organization.firstStartId(db);
  const egress = createEgressPolicy({ ...egressConfig, firstOrganizationId });
  const telemetry = createTelemetry({ db, serviceName: 'engram-worker', otlpEndpoint: telemetryConfig.otlpEndpoint, recordContent: telemetryConfig.recordContent });
  const { worker, connection } = await createWorker({
    address: temporal.address,
    namespace: temporal.namespace,
    taskQueue: temporal.taskQueue,
    workflowBundlePath: process.env.ENGRAM_WORKFLOW_BUNDLE ?? DEFAULT_BUNDLE_PATH,
    activityDeps: {
      db,
      baseProviders: parseBaseProviders(process.env),
      secrets: createSecretBox(secretKey),
      egress,
      // Without bubblewrap, stdio servers do not run (ENGRAM_UNSAFE_LOCAL_TOOLS covers tools only): the policy probes for itself then.
      mcpStdio: createMcpStdioPolicy({ ...mcpStdioConfig, firstOrganizationId, egress, ...(sandboxIsolation.kind === 'bubblewrap' ? { isolation: sandboxIsolation } : {}) }),
      sandboxIsolation,
      payments: createPaymentGateway(payments),
      notifier: smtp
        ? createSmtpNotifier({
            db,
            smtpUrl: smtp.url,
            from: smtp.from,
            onDeliveryFailure: (error, { subject }) => console.error(`[engram] email "${subject}" not delivered; it stays in the outbox:`, error),
          })
        : createOutboxNotifier({ db }),
    },
    telemetry,
  });
  const shutdown = () => worker.shutdown();
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await worker.run();
  await connection.close();
  await telemetry.shutdown();
  await db.destroy();
}

main().catch((error: unknown) => {
  const oneLine = [ConfigError, TelemetryConfigError, PaymentsConfigError, NotifierConfigError, EgressConfigError, McpStdioConfigError].some((kind) => error instanceof kind);
  console.error(oneLine && error instanceof Error ? error.message : error);
  process.exit(1);
});
