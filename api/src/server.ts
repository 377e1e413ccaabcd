import closeWithGrace from 'close-with-grace';
import { createDatabase, createSecretBox, Organization } from '@engram/db';
import { createEgressPolicy } from '@engram/integrations/egress';
import { parseBaseProviders } from '@engram/integrations/llm';
import { createMcpStdioPolicy } from '@engram/integrations/mcp';
import { createPaymentGateway } from '@engram/integrations/payments';
import { createTelemetry, parseTelemetryConfig, TelemetryConfigError } from '@engram/integrations/telemetry';
import { createTemporalClient, ensureBillingPeriodSchedule, ensureTraceRetentionSchedule, parseTemporalConfig, ConfigError } from '@engram/temporal/client';
import { buildApp } from './app.js';
import { parseApiConfig } from './config.js';
import { createServices } from './services/index.js';
import { createNotificationHub } from './services/runs/notification-hub.js';
import { createSmtpNotifier } from '@engram/integrations/notifications';

/** API process entry: parse config once, compose, listen, and close gracefully. */
async function main(): Promise<void> {
  const config = parseApiConfig(process.env);
  const temporalConfig = parseTemporalConfig(process.env);
  const databaseUrl = process.env.DATABASE_URL;
  const secretKey = process.env.ENGRAM_SECRET_KEY;
  if (!databaseUrl) throw new ConfigError('DATABASE_URL: required by the API server');
  if (!temporalConfig.address) throw new ConfigError('TEMPORAL_ADDRESS: required by the API server');
  if (!secretKey) throw new ConfigError('ENGRAM_SECRET_KEY: required by the API server (it encrypts stored secrets)');

  const telemetryConfig = parseTelemetryConfig(process.env);
  const db = createDatabase({ url: databaseUrl });
  const telemetry = createTelemetry({ db, serviceName: 'engram-api', otlpEndpoint: telemetryConfig.otlpEndpoint, recordContent: telemetryConfig.recordContent });
  const temporal = await createTemporalClient({ address: temporalConfig.address, namespace: temporalConfig.namespace, tracer: telemetry.tracer });
  const notifications = await createNotificationHub({ databaseUrl });
  const { smtp } = config;
  const notifier = smtp
    ? createSmtpNotifier({
        db,
        smtpUrl: smtp.url,
        from: smtp.from,
        onDeliveryFailure: (error, { subject }) => console.error(`[engram] email "${subject}" not delivered; it stays in the outbox:`, error),
      })
    : undefined;
  const firstOrganizationId = await Organization.firstStartId(db);
  const egress = createEgressPolicy({ ...config.egress, firstOrganizationId });
  const services = createServices({
    db,
    temporal,
    taskQueue: temporalConfig.taskQueue,
    secrets: createSecretBox(secretKey),
    baseProviders: parseBaseProviders(process.env),
    egress,
    mcpStdio: createMcpStdioPolicy({ ...config.mcpStdio, firstOrganizationId, egress }),
    notifications,
    notifier,
    supportChatSecret: config.supportChatSecret ?? undefined,
    publicUrl: config.publicUrl,
    billingMode: config.billingMode,
    payments: createPaymentGateway(config.payments),
    adminEmails: config.adminEmails,
    cloudAccessCodes: config.cloudAccessCodes,
  });
  await services.adminUsers.grantConfiguredAdmins();
  await ensureTraceRetentionSchedule({ client: temporal, taskQueue: temporalConfig.taskQueue, retentionDays: telemetryConfig.retentionDays });
  await ensureBillingPeriodSchedule({ client: temporal, taskQueue: temporalConfig.taskQueue });
  const app = await buildApp({ config, services, tracer: telemetry.tracer });

  closeWithGrace({ delay: 10_000 }, async ({ err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    await app.close();
    await notifications.close();
    await temporal.connection.close();
    await telemetry.shutdown();
    await db.destroy();
  });
  const address = await app.listen({ port: config.port, host: config.host });
  // Whatever the log level: with PORT=0 this is how whoever started it learns the port.
  console.log(`[engram] API listening on ${address}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof TelemetryConfigError ? error.message : error);
  process.exit(1);
});
