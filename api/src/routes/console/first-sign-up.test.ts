import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ApiKey,
  createDatabase,
  createDatabaseIfMissing,
  createSecretBox,
  databaseUrlFor,
  dropDatabase,
  migrateToLatest,
  Organization,
  OrganizationMember,
  User,
  type Database,
} from '@engram/db';
import { createTemporalClient } from '@engram/temporal/client';
import { startScriptedModelServer, type ScriptedModelServer } from '@engram/testing';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { buildApp } from '../../app.js';
import { parseApiConfig } from '../../config.js';
import { CONSOLE_REQUEST_HEADER } from '../../http/auth.js';
import { createNotificationHub } from '../../services/runs/notification-hub.js';
import { createServices, type AppServices } from '../../services/index.js';
import type { CreatedTenant } from '../../services/tenancy/organizations.js';
import { loopbackEgress } from '@engram/testing/egress';
import { sandboxedStdio } from '@engram/testing/mcp-stdio';

/*
 * `npm start` on an empty database creates an organization whose admin cannot sign in, and prints
 * that admin's API key. The first account to sign up takes that admin over; nobody else does.
 * Each test runs against a database of its own, as fresh as a new install's.
 */

type FreshInstall = { baseUrl: string; db: Database; services: AppServices; firstStart: CreatedTenant; stop(): Promise<void> };

let model: ScriptedModelServer;
const installs: FreshInstall[] = [];

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
});

afterAll(async () => {
  for (const install of installs) await install.stop();
  await model?.close();
});

/** A migrated empty database, the API on it, and what `npm start` creates on its first start. */
async function freshInstall(): Promise<FreshInstall> {
  const adminUrl = inject('postgresAdminUrl');
  const databaseName = `engram_first_run_${randomBytes(4).toString('hex')}`;
  await createDatabaseIfMissing(adminUrl, databaseName);
  const databaseUrl = databaseUrlFor(adminUrl, databaseName);
  const db = createDatabase({ url: databaseUrl, pool: { max: 5 } });
  await migrateToLatest(db);
  const temporal = await createTemporalClient({ address: inject('temporalAddress'), namespace: 'default' });
  const notifications = await createNotificationHub({ databaseUrl });
  const egress = loopbackEgress();
  const services = createServices({
    db,
    temporal,
    taskQueue: `first-run-${randomBytes(4).toString('hex')}`,
    secrets: createSecretBox(randomBytes(32).toString('base64')),
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
    egress,
    mcpStdio: sandboxedStdio(egress),
    notifications,
  });
  const app = await buildApp({ config: { ...parseApiConfig({}), port: 0, logLevel: 'silent' }, services, logger: false });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const firstStart = await services.organizations.bootstrapIfEmpty();
  if (!firstStart) throw new Error('a fresh database should be bootstrapped');
  const install: FreshInstall = {
    baseUrl,
    db,
    services,
    firstStart,
    async stop() {
      await app.close();
      await notifications.close();
      await temporal.connection.close();
      await db.destroy();
      await dropDatabase(adminUrl, databaseName);
    },
  };
  installs.push(install);
  return install;
}

type V1Response = { status: number; body: any };

async function v1(install: FreshInstall, auth: { key: string } | { browser: ConsoleClient }, method: string, path: string, body?: unknown): Promise<V1Response> {
  const headers: Record<string, string> =
    'key' in auth ? { authorization: `Bearer ${auth.key}` } : { cookie: auth.browser.jar.header() ?? '', [CONSOLE_REQUEST_HEADER]: '1' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${install.baseUrl}/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function signUp(install: FreshInstall, name: string): Promise<{ browser: ConsoleClient; email: string; password: string }> {
  const browser = new ConsoleClient(install.baseUrl);
  const email = `${name.toLowerCase()}-${randomBytes(4).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const created = await browser.post('/user/new', { email, name, password });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { browser, email, password };
}

const agentIds = (listed: V1Response) => (listed.body as Array<{ id: string }>).map((agent) => agent.id);

describe('the first sign-up on a fresh install', () => {
  it("becomes the first-start admin: it sees the printed key's agents and the key acts as it; a later sign-up gets an organization of its own", async () => {
    const install = await freshInstall();
    const printedKey = { key: install.firstStart.apiKey.key };
    const agent = await v1(install, printedKey, 'POST', '/agents/', { name: 'made-with-the-printed-key', model: 'openai/gpt-4o-mini' });
    expect(agent.status, JSON.stringify(agent.body)).toBe(200);
    expect(await install.services.organizations.firstStartAdminUnclaimed()).toBe(true);

    const ada = await signUp(install, 'Ada');
    const self = await ada.browser.get('/user/self');
    expect(self.body).toMatchObject({ id: install.firstStart.userId, name: 'Ada', email: ada.email, activeOrganizationId: install.firstStart.organizationId });
    expect(await install.services.organizations.firstStartAdminUnclaimed()).toBe(false);

    // Through /v1 with the console session, and through the console API.
    expect(agentIds(await v1(install, { browser: ada.browser }, 'GET', '/agents/'))).toEqual([agent.body.id]);
    const keys = await ada.browser.get('/api-keys');
    expect(keys.body.apiKeys).toEqual([expect.objectContaining({ id: install.firstStart.apiKey.id, name: 'default' })]);
    const members = await ada.browser.get('/organizations/self/members');
    expect(members.body.members).toEqual([expect.objectContaining({ id: install.firstStart.userId, email: ada.email, role: 'admin' })]);

    // The printed key keeps working, as Ada's key: what it creates, she sees.
    const second = await v1(install, printedKey, 'POST', '/agents/', { name: 'made-after-the-claim', model: 'openai/gpt-4o-mini' });
    expect(second.status).toBe(200);
    expect(agentIds(await v1(install, { browser: ada.browser }, 'GET', '/agents/')).sort()).toEqual([agent.body.id, second.body.id].sort());
    expect((await ApiKey.query(install.db).findById(install.firstStart.apiKey.id))?.userId).toBe(install.firstStart.userId);

    // She signs in again with her password like any account.
    const again = new ConsoleClient(install.baseUrl);
    expect((await again.post('/user/login', { email: ada.email, password: ada.password })).status).toBe(200);
    expect((await again.get('/user/self')).body.id).toBe(install.firstStart.userId);

    // Anyone after her: an organization of their own, none of the first-start agents.
    const grace = await signUp(install, 'Grace');
    const graceSelf = await grace.browser.get('/user/self');
    expect(graceSelf.body.activeOrganizationId).not.toBe(install.firstStart.organizationId);
    expect(agentIds(await v1(install, { browser: grace.browser }, 'GET', '/agents/'))).toEqual([]);
    expect((await v1(install, { browser: grace.browser }, 'GET', `/agents/${agent.body.id}`)).status).toBe(404);
    expect((await grace.browser.get('/api-keys')).body.apiKeys).toEqual([]);
    expect(await OrganizationMember.query(install.db).forOrg(install.firstStart.organizationId)).toEqual([
      expect.objectContaining({ userId: install.firstStart.userId, role: 'admin' }),
    ]);
    // What the operator allows the first-start organization (ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION) stays its own after the claim.
    expect(await Organization.firstStartId(install.db)).toBe(install.firstStart.organizationId);
  });

  it('is claimed exactly once when two accounts sign up at the same moment', async () => {
    const install = await freshInstall();
    const [first, second] = await Promise.all([signUp(install, 'Ada'), signUp(install, 'Grace')]);
    const organizations = await Promise.all([first, second].map(async (account) => (await account.browser.get('/user/self')).body.activeOrganizationId));
    expect(organizations.filter((organizationId) => organizationId === install.firstStart.organizationId)).toHaveLength(1);
    expect(new Set(organizations).size).toBe(2);
    // The first-start admin was taken over, not copied: two accounts, both with a password.
    const users = await User.query(install.db);
    expect(users).toHaveLength(2);
    expect(users.every((user) => user.passwordHash !== null && !user.claimableByFirstSignUp)).toBe(true);
    expect(await OrganizationMember.query(install.db).forOrg(install.firstStart.organizationId)).toHaveLength(1);
  });
});
