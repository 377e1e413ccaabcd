import { lookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { connect as connectTcp, type Socket } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch, type Dispatcher, type RequestInit as UndiciRequestInit } from 'undici';
import { classifyIpAddress, embeddedIpv4, networkContains, parseIpAddress, type AddressClass, type IpAddress, type IpNetwork } from './addresses.js';

/** Whose request it is: the organization's allowances apply, and a refusal is logged under it. */
export type EgressScope = { organizationId: string };

/** What an operator allows besides public addresses: a host name (`mcp.corp.internal`, `*.corp.internal`) or a network. */
export type EgressRule = { kind: 'host'; host: string } | { kind: 'network'; network: IpNetwork };

export type EgressConfig = {
  /** ENGRAM_EGRESS_ALLOW: reachable for every organization. */
  allow: EgressRule[];
  /** ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION: reachable for the first-start organization only. */
  allowFirstOrganization: EgressRule[];
};

export type ResolvedAddress = { address: string; family: 4 | 6 };

/** Every address a host name resolves to; the system resolver unless a test injects its own. */
export type EgressResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export type EgressRefusalReason = Exclude<AddressClass, 'public'> | 'scheme';

/** What is logged for each refusal: never the URL, whose path, query and credentials may hold secrets. */
export type EgressRefusal = { organizationId: string; host: string; address: string | null; reason: EgressRefusalReason };

export type EgressPolicyOptions = EgressConfig & {
  /** The organization `npm start` created on its first start (`organizations.first_start`), if any. */
  firstOrganizationId: string | null;
  resolve?: EgressResolver;
  onRefused?: (refusal: EgressRefusal) => void;
  maxRedirects?: number;
};

const REASON_TEXT: Record<EgressRefusalReason, string> = {
  loopback: 'a loopback address',
  private: 'a private network address',
  'link-local': 'a link-local address',
  shared: 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  'cloud-metadata': 'a cloud metadata endpoint',
  scheme: 'not an http or https URL',
};

/** A destination the egress policy refuses for URLs a tenant supplied. */
export class EgressRefusedError extends Error {
  readonly host: string;
  readonly address: string | null;
  readonly reason: EgressRefusalReason;

  constructor(refusal: Omit<EgressRefusal, 'organizationId'>) {
    const where = refusal.address && refusal.address !== refusal.host ? `${refusal.host} (${refusal.address})` : refusal.host;
    super(
      refusal.reason === 'scheme'
        ? `Refused to connect to ${where}: ${REASON_TEXT.scheme}`
        : `Refused to connect to ${where}: it is ${REASON_TEXT[refusal.reason]}, which this server does not reach for organizations unless its operator allows it (ENGRAM_EGRESS_ALLOW)`,
    );
    this.name = 'EgressRefusedError';
    this.host = refusal.host;
    this.address = refusal.address;
    this.reason = refusal.reason;
  }
}

/** The refusal inside whatever a client library wrapped it in (`fetch failed`, `Connection error.`, …). */
export function egressRefusalOf(error: unknown): EgressRefusedError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 6; current = current.cause, depth += 1) {
    if (current instanceof EgressRefusedError) return current;
  }
  return undefined;
}

/** Names of cloud metadata services, refused whatever they resolve to (they need not resolve off their cloud). */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const DEFAULT_MAX_REDIRECTS = 10;

const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** `[::1]` → `::1`, `Example.COM.` → `example.com`. */
function normalizeHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

function hostMatches(rule: Extract<EgressRule, { kind: 'host' }>, host: string): boolean {
  return rule.host.startsWith('*.') ? host.endsWith(rule.host.slice(1)) : host === rule.host;
}

async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  return (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

function canonical(address: IpAddress): ResolvedAddress {
  if (address.version === 4) return { address: address.bytes.join('.'), family: 4 };
  const groups = Array.from({ length: 8 }, (_, index) => ((address.bytes[index * 2]! << 8) | address.bytes[index * 2 + 1]!).toString(16));
  return { address: groups.join(':'), family: 6 };
}

/**
 * The one egress policy for connections to URLs a tenant supplied (run callbacks, MCP servers and their OAuth,
 * BYOK model providers, tools that fetch): public destinations only, besides what the operator allows. The check
 * runs where the connection is made, on the addresses it connects to (DNS is resolved once, checked, and those
 * addresses are the ones connected to), for every redirect hop.
 */
export function createEgressPolicy(options: EgressPolicyOptions) {
  const resolve = options.resolve ?? systemResolve;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const onRefused =
    options.onRefused ??
    ((refusal: EgressRefusal) =>
      console.warn(`[engram] egress refused for organization ${refusal.organizationId}: ${refusal.host}${refusal.address && refusal.address !== refusal.host ? ` (${refusal.address})` : ''} is ${refusal.reason}`));
  // One connection pool per organization: a connection checked for one is never reused for another.
  const agents = new Map<string, Agent>();

  const rulesFor = (scope: EgressScope): EgressRule[] =>
    scope.organizationId === options.firstOrganizationId ? [...options.allow, ...options.allowFirstOrganization] : options.allow;

  function refuse(scope: EgressScope, refusal: Omit<EgressRefusal, 'organizationId'>): never {
    onRefused({ organizationId: scope.organizationId, ...refusal });
    throw new EgressRefusedError(refusal);
  }

  function networkAllowed(rules: EgressRule[], address: IpAddress): boolean {
    const carried = embeddedIpv4(address);
    return rules.some((rule) => rule.kind === 'network' && (networkContains(rule.network, address) || (carried !== null && networkContains(rule.network, carried))));
  }

  function checkAddress(scope: EgressScope, rules: EgressRule[], host: string, address: IpAddress): void {
    if (networkAllowed(rules, address)) return;
    const kind = classifyIpAddress(address);
    if (kind !== 'public') refuse(scope, { host, address: canonical(address).address, reason: kind });
  }

  /** The addresses to connect to for `hostname`, each checked; throws EgressRefusedError, or the resolver's error. */
  async function permittedAddresses(scope: EgressScope, hostname: string): Promise<ResolvedAddress[]> {
    const host = normalizeHost(hostname);
    const rules = rulesFor(scope);
    const literal = parseIpAddress(host);
    if (literal) {
      checkAddress(scope, rules, host, literal);
      return [canonical(literal)];
    }
    if (rules.some((rule) => rule.kind === 'host' && hostMatches(rule, host))) return resolve(host);
    if (METADATA_HOSTS.has(host)) refuse(scope, { host, address: null, reason: 'cloud-metadata' });
    const addresses = await resolve(host);
    const parsed = addresses.map((entry) => parseIpAddress(entry.address)).filter((address): address is IpAddress => address !== null);
    // A resolver may say anything for these names; they mean this machine all the same.
    if (isLocalhostName(host) && !(parsed.length > 0 && parsed.every((address) => networkAllowed(rules, address)))) {
      refuse(scope, { host, address: addresses[0]?.address ?? null, reason: 'loopback' });
    }
    for (const address of parsed) checkAddress(scope, rules, host, address);
    return parsed.map(canonical);
  }

  function assertScheme(scope: EgressScope, url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse(scope, { host: normalizeHost(url.hostname) || url.protocol, address: null, reason: 'scheme' });
  }

  /** What `net.connect` calls for a host name: only addresses that passed the check are handed back. */
  function pinnedLookup(scope: EgressScope) {
    return (hostname: string, lookupOptions: LookupOptions, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
      permittedAddresses(scope, hostname).then(
        (addresses) => {
          if (lookupOptions.all) return callback(null, addresses);
          const chosen = addresses.find((entry) => !lookupOptions.family || entry.family === lookupOptions.family) ?? addresses[0];
          if (!chosen) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
          callback(null, chosen.address, chosen.family);
        },
        (error: Error) => callback(error, ''),
      );
    };
  }

  function dispatcherFor(scope: EgressScope): Dispatcher {
    const existing = agents.get(scope.organizationId);
    if (existing) return existing;
    const connector = buildConnector({ lookup: pinnedLookup(scope) as never });
    const agent = new Agent({
      connect: (connectOptions, callback) => {
        // net.connect resolves nothing for a literal address, so the lookup never sees it: it is checked here.
        const host = normalizeHost(connectOptions.hostname);
        const literal = parseIpAddress(host);
        try {
          if (literal) checkAddress(scope, rulesFor(scope), host, literal);
        } catch (error) {
          callback(error as Error, null);
          return;
        }
        connector(connectOptions, callback);
      },
    });
    agents.set(scope.organizationId, agent);
    return agent;
  }

  /** A TCP connection to `host:port` (a proxy's CONNECT tunnel), checked and pinned as every other connection is. */
  function connect(scope: EgressScope, hostname: string, port: number): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const host = normalizeHost(hostname);
      const literal = parseIpAddress(host);
      try {
        if (literal) checkAddress(scope, rulesFor(scope), host, literal);
      } catch (error) {
        reject(error as Error);
        return;
      }
      const socket = connectTcp({ host: literal ? canonical(literal).address : host, port, lookup: pinnedLookup(scope) as never });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(socket);
      });
      socket.once('error', reject);
    });
  }

  async function send(url: URL, init: UndiciRequestInit): Promise<Response> {
    try {
      return (await undiciFetch(url, init)) as unknown as Response;
    } catch (error) {
      throw egressRefusalOf(error) ?? error;
    }
  }

  function fetchFor(scope: EgressScope): typeof fetch {
    const dispatcher = dispatcherFor(scope);
    return async (input, init = {}) => {
      const request = input instanceof Request ? input : null;
      let url = new URL(request ? request.url : input instanceof URL ? input.href : input);
      let method = (init.method ?? request?.method ?? 'GET').toUpperCase();
      const headers = new Headers(init.headers ?? request?.headers);
      let body = init.body ?? request?.body ?? null;
      const redirect = init.redirect ?? request?.redirect ?? 'follow';
      assertScheme(scope, url);
      for (let hop = 0; ; hop += 1) {
        const response = await send(url, {
          ...(init as UndiciRequestInit),
          method,
          headers: headers as unknown as UndiciRequestInit['headers'],
          body: body as UndiciRequestInit['body'],
          signal: init.signal ?? request?.signal ?? null,
          redirect: 'manual',
          dispatcher,
          ...(body instanceof ReadableStream ? { duplex: 'half' as const } : {}),
        });
        const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
        if (location === null || redirect === 'manual') return response;
        await response.body?.cancel();
        if (redirect === 'error') throw new TypeError(`${url.host} answered with a redirect, which this request does not follow`);
        if (hop >= maxRedirects) throw new TypeError(`More than ${maxRedirects} redirects, starting at ${url.host}`);
        const next = new URL(location, url);
        assertScheme(scope, next);
        if ((response.status === 303 && method !== 'HEAD') || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          method = 'GET';
          body = null;
          for (const name of BODY_HEADERS) headers.delete(name);
        } else if (body instanceof ReadableStream) {
          throw new TypeError(`${url.host} redirected a request whose streamed body cannot be sent again`);
        }
        if (next.origin !== url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
        url = next;
      }
    };
  }

  return {
    /** A fetch for the organization's requests: pinned, checked DNS, every redirect hop checked, at most `maxRedirects` of them. */
    fetchFor,
    /** An undici dispatcher with the same checks, for clients that take one instead of a fetch. */
    dispatcherFor,
    connect,
    /**
     * Refuses a URL at the time it is given (a callback URL, an MCP server, a provider's base URL): throws
     * EgressRefusedError when its host is, or resolves to, a refused address. A host that does not resolve now is
     * not refused here; every connection is checked again when it is made.
     */
    async assertAllowed(url: string | URL, scope: EgressScope): Promise<void> {
      const parsed = typeof url === 'string' ? new URL(url) : url;
      assertScheme(scope, parsed);
      try {
        await permittedAddresses(scope, parsed.hostname);
      } catch (error) {
        if (error instanceof EgressRefusedError) throw error;
      }
    },
  };
}

export type EgressPolicy = ReturnType<typeof createEgressPolicy>;
