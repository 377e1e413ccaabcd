import { z } from 'zod';
import { ConfigError, firstIssueLine, withoutEmptyValues } from '@engram/temporal';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const ApiConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8283),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  STREAM_PING_INTERVAL_SECONDS: z.coerce.number().positive().default(20),
  STREAM_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
});

export type ApiConfig = {
  port: number;
  host: string;
  logLevel: (typeof LOG_LEVELS)[number];
  version: string;
  /** Silence after which a stream that asked for pings gets one. */
  streamPingIntervalMs: number;
  /** Longest a stream reader waits without a notification before re-reading the log. */
  streamPollIntervalMs: number;
};

export const ENGRAM_VERSION = '0.1.0';

export function parseApiConfig(env: NodeJS.ProcessEnv): ApiConfig {
  const parsed = ApiConfigSchema.safeParse(withoutEmptyValues(env));
  if (!parsed.success) throw new ConfigError(firstIssueLine(parsed.error));
  return {
    port: parsed.data.PORT,
    host: parsed.data.HOST,
    logLevel: parsed.data.LOG_LEVEL,
    version: ENGRAM_VERSION,
    streamPingIntervalMs: parsed.data.STREAM_PING_INTERVAL_SECONDS * 1000,
    streamPollIntervalMs: parsed.data.STREAM_POLL_INTERVAL_MS,
  };
}
