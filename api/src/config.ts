import { isIP } from 'node:net';
import { z } from 'zod';
import { ConfigError, firstIssueLine, parseTemporalConfig, withoutEmptyValues } from '@engram/temporal/client';
import { parsePaymentsConfig, PaymentsConfigError, type PaymentsConfig } from '@engram/integrations/payments';
import { NotifierConfigError, parseSmtpConfig, type SmtpConfig } from '@engram/integrations/notifications';
import { EgressConfigError, parseEgressConfig, type EgressConfig } from '@engram/integrations/egress';
import { McpStdioConfigError, parseMcpStdioConfig, type McpStdioConfig } from '@engram/integrations/mcp';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** One proxy address or network, as Fastify's `trustProxy` (proxy-addr) takes it: `10.0.0.1`, `10.0.0.0/8`, `::1`. */
function isAddressOrNetwork(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length > 0 || !address) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}

const TRUST_PROXY_ERROR = 'must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses or networks (CIDR)';

/** ENGRAM_TRUST_PROXY: `true`, `false`, a hop count, or a comma-separated list of addresses and CIDR networks. */
const TrustProxySchema = z.string().transform((value, context): boolean | number | string[] => {
  const trimmed = value.trim();
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const entries = trimmed.split(',').map((entry) => entry.trim()).filter(Boolean);
  if (entries.length === 0 || !entries.every(isAddressOrNetwork)) {
    context.addIssue({ code: 'custom', message: TRUST_PROXY_ERROR });
    return z.NEVER;
  }
  return entries;
});

export const ApiConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8283),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  STREAM_PING_INTERVAL_SECONDS: z.coerce.number().positive().default(20),
  STREAM_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  ENGRAM_MAX_UPLOAD_BYTES: z.coerce.number().int().positive().default(50 * 1024 * 1024),
  ENGRAM_SUPPORT_CHAT_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  NODE_ENV: z.string().optional(),
  ENGRAM_DEVELOPMENT_OUTBOX: z.enum(['true', 'false']).optional(),
  TEMPORAL_UI_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL, like http://127.0.0.1:8233' }).optional(),
  ENGRAM_ADMIN_EMAILS: z
    .string()
    .transform((value) => value.split(',').map((email) => email.trim().toLowerCase()).filter(Boolean))
    .pipe(z.array(z.email({ error: 'must be a comma-separated list of email addresses' })))
    .optional(),
  ENGRAM_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL, like https://engram.example.com' }).optional(),
  ENGRAM_BILLING: z.enum(['on', 'off'], { error: 'must be on or off' }).default('off'),
  ENGRAM_TRUST_PROXY: TrustProxySchema.optional(),
  ENGRAM_CLOUD_ACCESS_CODES: z
    .string()
    .transform((value) => value.split(',').map((code) => code.trim()).filter(Boolean))
    .pipe(z.array(z.string().min(6, { error: 'must be a comma-separated list of codes of at least 6 characters each' })))
    .optional(),
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
  /** Largest file a folder upload accepts; a larger one is refused with 413 before it is stored. */
  maxUploadBytes: number;
  /** Where emails are delivered; without it they stay in the outbox table (the console reads codes from there in development). */
  smtp: SmtpConfig;
  /** Signs support-chat identities; without it the console gets no support-chat token. */
  supportChatSecret: string | null;
  /**
   * Serve `GET /api/development/outbox`, where signed-in users read the codes and invitations sent
   * to them, so sign-up works without a mail relay. On unless NODE_ENV is production;
   * ENGRAM_DEVELOPMENT_OUTBOX=true|false decides either way.
   */
  exposeDevelopmentOutbox: boolean;
  /**
   * The Temporal Web UI where operators inspect a run's workflow (its id is the run id), and the namespace runs
   * live in; the console links runs there. Null without TEMPORAL_UI_URL (`npm start` sets it for its dev server).
   */
  temporalUi: { url: string; namespace: string } | null;
  /**
   * Where users and apps reach this API, without a trailing slash; the OAuth issuer is `<publicUrl>/oauth`.
   * `http://HOST:PORT` unless ENGRAM_PUBLIC_URL says otherwise (set it behind a proxy or TLS terminator).
   */
  publicUrl: string;
  /**
   * ENGRAM_BILLING: `off` (the default, for self-hosting) meters every step but refuses nothing; `on` enforces tier
   * limits, quotas and the credit balance, as the hosted product does.
   */
  billingMode: 'on' | 'off';
  /**
   * ENGRAM_TRUST_PROXY, Fastify's `trustProxy`: which proxies' `X-Forwarded-For` (and `-Proto`, `-Host`) to believe, so
   * a request's address is its client's rather than the proxy's (per-address rate limits then tell visitors apart).
   * `false` (the default) believes none; `true` every one; a number that many hops; a list those addresses or networks.
   */
  trustProxy: boolean | number | string[];
  /** STRIPE_SECRET_KEY and STRIPE_API_BASE: card payments through Stripe; null without a key. */
  payments: PaymentsConfig;
  /**
   * ENGRAM_EGRESS_ALLOW and ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION: the hosts and networks URLs organizations supply
   * may reach besides public addresses, for every organization or the first-start one only.
   */
  egress: EgressConfig;
  /**
   * ENGRAM_MCP_STDIO and ENGRAM_MCP_STDIO_READ_ONLY_PATHS: which organizations may run stdio MCP servers (commands
   * started on this machine, in the bubblewrap sandbox), and what host directories those see besides the system's.
   */
  mcpStdio: McpStdioConfig;
  /** ENGRAM_ADMIN_EMAILS, lower-cased: accounts with these emails are platform admins (besides the first-start admin). */
  adminEmails: string[];
  /**
   * ENGRAM_CLOUD_ACCESS_CODES: with codes, an organization runs agents only once a member entered one (platform admins
   * and whitelisted emails need none); empty, the default, leaves the platform open.
   */
  cloudAccessCodes: string[];
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
    maxUploadBytes: parsed.data.ENGRAM_MAX_UPLOAD_BYTES,
    smtp: asConfigError(() => parseSmtpConfig(env), NotifierConfigError),
    supportChatSecret: parsed.data.ENGRAM_SUPPORT_CHAT_SECRET ?? null,
    exposeDevelopmentOutbox: parsed.data.ENGRAM_DEVELOPMENT_OUTBOX
      ? parsed.data.ENGRAM_DEVELOPMENT_OUTBOX === 'true'
      : parsed.data.NODE_ENV !== 'production',
    temporalUi: parsed.data.TEMPORAL_UI_URL
      ? { url: parsed.data.TEMPORAL_UI_URL.replace(/\/+$/, ''), namespace: parseTemporalConfig(env).namespace }
      : null,
    adminEmails: parsed.data.ENGRAM_ADMIN_EMAILS ?? [],
    cloudAccessCodes: parsed.data.ENGRAM_CLOUD_ACCESS_CODES ?? [],
    publicUrl: (parsed.data.ENGRAM_PUBLIC_URL ?? `http://${parsed.data.HOST}:${parsed.data.PORT}`).replace(/\/+$/, ''),
    billingMode: parsed.data.ENGRAM_BILLING,
    trustProxy: parsed.data.ENGRAM_TRUST_PROXY ?? false,
    payments: asConfigError(() => parsePaymentsConfig(env), PaymentsConfigError),
    egress: asConfigError(() => parseEgressConfig(env), EgressConfigError),
    mcpStdio: asConfigError(() => parseMcpStdioConfig(env), McpStdioConfigError),
  };
}

/** A setting parsed by a module the worker shares: its error becomes the API's one-line ConfigError. */
function asConfigError<T>(parse: () => T, errorClass: new (...args: never[]) => Error): T {
  try {
    return parse();
  } catch (error) {
    throw error instanceof errorClass ? new ConfigError(error.message) : error;
  }
}
