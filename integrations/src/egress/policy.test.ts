import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEgressConfig, EgressConfigError } from './config.js';
import { createEgressPolicy, EgressRefusedError, type EgressRefusal, type EgressResolver, type ResolvedAddress } from './policy.js';

const FIRST = 'organization-first';
const OTHER = 'organization-other';
const PUBLIC_ADDRESS: ResolvedAddress = { address: '93.184.216.34', family: 4 };

type Listener = { url: string; port: number; hits: IncomingMessage[]; server: Server };
const listeners: Listener[] = [];

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end('ok')): Promise<Listener> {
  const hits: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    hits.push(request);
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const listener = { url: `http://127.0.0.1:${port}`, port, hits, server };
  listeners.push(listener);
  return listener;
}

afterEach(async () => {
  await Promise.all(listeners.splice(0).map(({ server }) => new Promise((resolve) => server.close(resolve))));
});

/** A resolver of test names; anything else does not resolve. */
function resolverOf(names: Record<string, ResolvedAddress[] | (() => ResolvedAddress[])>): EgressResolver {
  return async (hostname) => {
    const entry = names[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return typeof entry === 'function' ? entry() : entry;
  };
}

function policyWith(env: NodeJS.ProcessEnv, resolve: EgressResolver = resolverOf({ localhost: [{ address: '127.0.0.1', family: 4 }] })) {
  const refusals: EgressRefusal[] = [];
  const policy = createEgressPolicy({ ...parseEgressConfig(env), firstOrganizationId: FIRST, resolve, onRefused: (refusal) => refusals.push(refusal) });
  return { policy, refusals };
}

const refusedBecause = (reason: string) => expect.objectContaining({ name: 'EgressRefusedError', reason });

describe('assertAllowed', () => {
  it.each([
    ['http://127.0.0.1:8283/v1/admin', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://[::1]:8080/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:a9fe:a9fe]/latest/meta-data/', 'cloud-metadata'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud-metadata'],
    ['http://[fd00:ec2::254]/', 'cloud-metadata'],
    ['http://10.0.0.7:5432/', 'private'],
    ['http://100.64.1.1/', 'shared'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://0.0.0.0:7233/', 'unspecified'],
    ['http://localhost:11434/', 'loopback'],
    ['http://LOCALHOST./', 'loopback'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'cloud-metadata'],
    ['file:///etc/passwd', 'scheme'],
  ])('refuses %s (%s)', async (url, reason) => {
    const { policy } = policyWith({});
    await expect(policy.assertAllowed(url, { organizationId: OTHER })).rejects.toEqual(refusedBecause(reason));
  });

  it('refuses a name that resolves to a private address, or to a public and a private one', async () => {
    const { policy } = policyWith(
      {},
      resolverOf({
        'db.internal.example': [{ address: '10.0.0.5', family: 4 }],
        'mixed.example': [PUBLIC_ADDRESS, { address: '::1', family: 6 }],
        'www.example': [PUBLIC_ADDRESS],
      }),
    );
    await expect(policy.assertAllowed('https://db.internal.example/', { organizationId: OTHER })).rejects.toEqual(refusedBecause('private'));
    await expect(policy.assertAllowed('https://mixed.example/', { organizationId: OTHER })).rejects.toEqual(refusedBecause('loopback'));
    await expect(policy.assertAllowed('https://www.example/hook', { organizationId: OTHER })).resolves.toBeUndefined();
  });

  it('refuses localhost names even where a resolver calls them public', async () => {
    const { policy } = policyWith({}, resolverOf({ 'app.localhost': [PUBLIC_ADDRESS] }));
    await expect(policy.assertAllowed('http://app.localhost/', { organizationId: OTHER })).rejects.toEqual(refusedBecause('loopback'));
  });

  it('leaves a host that does not resolve now to the check at connection time', async () => {
    const { policy, refusals } = policyWith({});
    await expect(policy.assertAllowed('https://nowhere.invalid/', { organizationId: OTHER })).resolves.toBeUndefined();
    expect(refusals).toEqual([]);
  });

  it('allows what the operator allows: networks for everyone, more for the first-start organization, named hosts whatever they resolve to', async () => {
    const resolve = resolverOf({ localhost: [{ address: '127.0.0.1', family: 4 }], 'mcp.corp.internal': [{ address: '10.1.2.3', family: 4 }], 'wiki.corp.internal': [{ address: '10.1.2.4', family: 4 }] });
    const { policy } = policyWith({ ENGRAM_EGRESS_ALLOW: '*.corp.internal, 192.168.0.0/16', ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION: '127.0.0.0/8,::1' }, resolve);
    for (const organizationId of [FIRST, OTHER]) {
      await expect(policy.assertAllowed('http://mcp.corp.internal/mcp', { organizationId })).resolves.toBeUndefined();
      await expect(policy.assertAllowed('http://wiki.corp.internal/', { organizationId })).resolves.toBeUndefined();
      await expect(policy.assertAllowed('http://192.168.1.20:11434/', { organizationId })).resolves.toBeUndefined();
      await expect(policy.assertAllowed('http://10.1.2.3/', { organizationId })).rejects.toEqual(refusedBecause('private'));
    }
    await expect(policy.assertAllowed('http://localhost:11434/', { organizationId: FIRST })).resolves.toBeUndefined();
    await expect(policy.assertAllowed('http://[::1]:11434/', { organizationId: FIRST })).resolves.toBeUndefined();
    await expect(policy.assertAllowed('http://[::ffff:127.0.0.1]/', { organizationId: FIRST })).resolves.toBeUndefined();
    await expect(policy.assertAllowed('http://localhost:11434/', { organizationId: OTHER })).rejects.toEqual(refusedBecause('loopback'));
    await expect(policy.assertAllowed('http://169.254.169.254/', { organizationId: FIRST })).rejects.toEqual(refusedBecause('cloud-metadata'));
  });

  it('logs each refusal with the organization and the destination, never the path, query or credentials', async () => {
    const { policy, refusals } = policyWith({});
    const refusal = policy.assertAllowed('http://admin:hunter2@127.0.0.1:9/reset?token=s3cret', { organizationId: OTHER });
    await expect(refusal).rejects.toBeInstanceOf(EgressRefusedError);
    await expect(refusal).rejects.not.toHaveProperty('message', expect.stringMatching(/hunter2|s3cret|reset/));
    expect(refusals).toEqual([{ organizationId: OTHER, host: '127.0.0.1', address: '127.0.0.1', reason: 'loopback' }]);
  });
});

describe('fetchFor', () => {
  it('reaches a loopback listener only for an organization allowed to', async () => {
    const listener = await listen();
    const { policy, refusals } = policyWith({ ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION: '127.0.0.0/8' });
    const allowed = await policy.fetchFor({ organizationId: FIRST })(`${listener.url}/callback`, { method: 'POST', body: '{}' });
    expect(await allowed.text()).toBe('ok');
    await expect(policy.fetchFor({ organizationId: OTHER })(`${listener.url}/callback`, { method: 'POST', body: '{}' })).rejects.toEqual(refusedBecause('loopback'));
    await expect(policy.fetchFor({ organizationId: OTHER })(`http://localhost:${listener.port}/`)).rejects.toEqual(refusedBecause('loopback'));
    expect(listener.hits).toHaveLength(1);
    expect(refusals.map((refusal) => refusal.organizationId)).toEqual([OTHER, OTHER]);
  });

  it('connects to the address it checked: DNS that answers public, then private, reaches nothing', async () => {
    const listener = await listen();
    const answers = [[PUBLIC_ADDRESS], [{ address: '127.0.0.1', family: 4 as const }]];
    const { policy } = policyWith({}, resolverOf({ 'rebind.example': () => answers.shift() ?? [] }));
    const scope = { organizationId: OTHER };
    await expect(policy.assertAllowed(`http://rebind.example:${listener.port}/`, scope)).resolves.toBeUndefined();
    await expect(policy.fetchFor(scope)(`http://rebind.example:${listener.port}/`)).rejects.toEqual(refusedBecause('loopback'));
    expect(listener.hits).toHaveLength(0);
  });

  it('checks every redirect hop: a redirect to loopback is refused and the loopback listener receives nothing', async () => {
    const internal = await listen();
    const redirector = await listen((_request, response) => response.writeHead(302, { location: `${internal.url}/admin` }).end());
    const toLocalhost = await listen((_request, response) => response.writeHead(307, { location: `http://localhost:${internal.port}/admin` }).end());
    // The operator allowed the redirecting host by name; where it sends the request is checked anew.
    const { policy } = policyWith({ ENGRAM_EGRESS_ALLOW: 'hooks.partner.example, relay.partner.example' }, resolverOf({
      'hooks.partner.example': [{ address: '127.0.0.1', family: 4 }],
      'relay.partner.example': [{ address: '127.0.0.1', family: 4 }],
      localhost: [{ address: '127.0.0.1', family: 4 }],
    }));
    const fetchForOther = policy.fetchFor({ organizationId: OTHER });
    await expect(fetchForOther(`http://hooks.partner.example:${redirector.port}/`)).rejects.toEqual(refusedBecause('loopback'));
    await expect(fetchForOther(`http://relay.partner.example:${toLocalhost.port}/`, { method: 'POST', body: 'x' })).rejects.toEqual(refusedBecause('loopback'));
    expect(redirector.hits).toHaveLength(1);
    expect(toLocalhost.hits).toHaveLength(1);
    expect(internal.hits).toHaveLength(0);
    // Asked not to follow, the caller gets the redirect itself.
    expect((await fetchForOther(`http://hooks.partner.example:${redirector.port}/`, { redirect: 'manual' })).status).toBe(302);
  });

  it('follows allowed redirects as fetch does, a bounded number of times, dropping credentials across origins', async () => {
    const target = await listen((request, response) => response.end(JSON.stringify({ method: request.method, authorization: request.headers.authorization ?? null })));
    const redirector = await listen((request, response) => response.writeHead(302, { location: `${target.url}/landed` }).end());
    let loops = 0;
    const loop = await listen((_request, response) => {
      loops += 1;
      response.writeHead(301, { location: '/again' }).end();
    });
    const { policy } = createPolicyAllowingLoopback();
    const fetchIt = policy.fetchFor({ organizationId: OTHER });
    const landed = await fetchIt(`${redirector.url}/`, { method: 'POST', body: 'x', headers: { authorization: 'Bearer secret' } });
    expect(await landed.json()).toEqual({ method: 'GET', authorization: null });
    await expect(fetchIt(`${loop.url}/`)).rejects.toThrow(/More than 3 redirects/);
    expect(loops).toBe(4);
  });
});

function createPolicyAllowingLoopback() {
  return { policy: createEgressPolicy({ ...parseEgressConfig({ ENGRAM_EGRESS_ALLOW: '127.0.0.1' }), firstOrganizationId: null, maxRedirects: 3, onRefused: () => undefined }) };
}

describe('parseEgressConfig', () => {
  it('reads host names, wildcards, addresses and networks, or none', () => {
    expect(parseEgressConfig({ ENGRAM_EGRESS_ALLOW: ' MCP.corp.internal ,*.lan, 10.0.0.0/8, ::1 ' }).allow).toEqual([
      { kind: 'host', host: 'mcp.corp.internal' },
      { kind: 'host', host: '*.lan' },
      expect.objectContaining({ kind: 'network', network: expect.objectContaining({ version: 4, prefix: 8 }) }),
      expect.objectContaining({ kind: 'network', network: expect.objectContaining({ version: 6, prefix: 128 }) }),
    ]);
    expect(parseEgressConfig({ ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION: 'none' })).toEqual({ allow: [], allowFirstOrganization: [] });
  });

  it.each(['http://10.0.0.1', '10.0.0.0/33', 'under_score..', 'a b'])('names the variable for %s', (entry) => {
    expect(() => parseEgressConfig({ ENGRAM_EGRESS_ALLOW: entry })).toThrow(EgressConfigError);
    expect(() => parseEgressConfig({ ENGRAM_EGRESS_ALLOW: entry })).toThrow(/^ENGRAM_EGRESS_ALLOW: /);
  });
});
