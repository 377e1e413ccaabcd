import closeWithGrace from 'close-with-grace';
import { createDatabase } from '@engram/db';
import { createTemporalClient, parseTemporalConfig, ConfigError } from '@engram/temporal';
import { buildApp } from './app.js';
import { parseApiConfig } from './config.js';
import { createServices } from './services/index.js';

/** API process entry: parse config once, compose, listen, and close gracefully. */
async function main(): Promise<void> {
  const config = parseApiConfig(process.env);
  const temporalConfig = parseTemporalConfig(process.env);
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new ConfigError('DATABASE_URL: required by the API server');
  if (!temporalConfig.address) throw new ConfigError('TEMPORAL_ADDRESS: required by the API server');

  const db = createDatabase({ url: databaseUrl });
  const temporal = await createTemporalClient({ address: temporalConfig.address, namespace: temporalConfig.namespace });
  const services = createServices({ db, temporal, taskQueue: temporalConfig.taskQueue });
  const app = await buildApp({ config, services });

  closeWithGrace({ delay: 10_000 }, async ({ err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    await app.close();
    await temporal.connection.close();
    await db.destroy();
  });
  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
