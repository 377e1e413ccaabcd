import { afterAll, describe, expect, it } from 'vitest';
import { ApiKey, EnvironmentVariable, Organization, Project } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { createAgent as createAgentAs, type CreatedAgent } from '@engram/testing/factories/index';
import { inviteMember, signUp, type ConsoleUser } from './console-test-support.js';

const { stack, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

/** An agent made through /v1 with an API key of the user's own. */
async function createAgent(user: ConsoleUser, headers: Record<string, string> = {}): Promise<CreatedAgent> {
  const key = await user.client.post('/api-keys', { name: 'agents' });
  return createAgentAs({ baseUrl: stack.baseUrl, apiKey: key.body.apiKey }, {}, headers);
}

describe('projects', () => {
  it('creates, finds by id or slug, renames, re-slugs and deletes', async () => {
    const user = await signUp(stack);
    const created = await user.client.post('/projects', { name: 'Support Bots!' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^project-/),
      name: 'Support Bots!',
      slug: 'support-bots',
      updatedAt: expect.any(String),
      isFavorited: false,
    });
    const sameName = await user.client.post('/projects', { name: 'Support Bots!' });
    expect(sameName.body.slug).toBe('support-bots-2');

    expect((await user.client.get(`/projects/${created.body.id}`)).body).toEqual(created.body);
    expect((await user.client.get('/projects/support-bots?lookupBy=slug')).body.id).toBe(created.body.id);
    expect((await user.client.get('/projects/support-bots')).status).toBe(404);

    const renamed = await user.client.patch(`/projects/${created.body.id}`, { name: 'Helpdesk', slug: 'helpdesk_v2' });
    expect(renamed.body).toMatchObject({ id: created.body.id, name: 'Helpdesk', slug: 'helpdesk_v2' });

    const empty = await user.client.patch(`/projects/${created.body.id}`, {});
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ message: 'Give a name or a slug', errorCode: 'atLeastOneFieldRequired' });
    const taken = await user.client.patch(`/projects/${created.body.id}`, { slug: 'support-bots-2' });
    expect(taken.body).toEqual({ message: 'Slug already taken', errorCode: 'slugAlreadyTaken' });
    const invalidSlug = await user.client.patch(`/projects/${created.body.id}`, { slug: 'not a slug!' });
    expect(invalidSlug.status).toBe(400);
    expect(invalidSlug.body).toMatchObject({ errorCode: 'validation', issues: [expect.objectContaining({ loc: ['body', 'slug'] })] });

    expect((await user.client.delete(`/projects/${created.body.id}`)).body).toEqual({ success: true });
    expect((await user.client.get(`/projects/${created.body.id}`)).status).toBe(404);

    const preferences = await user.client.get('/organizations/self/preferences');
    const defaultProject = await user.client.delete(`/projects/${preferences.body.defaultProjectId}`);
    expect(defaultProject.status).toBe(400);
    expect(defaultProject.body).toEqual({ message: 'The default project cannot be deleted' });
  });

  it('searches, orders and pages, and marks favorites per member', async () => {
    const user = await signUp(stack);
    for (const name of ['Gamma', 'alpha', 'Beta']) await user.client.post('/projects', { name });
    const byName = await user.client.get('/projects?orderBy=name&orderDirection=asc');
    expect(byName.body.projects.map((project: { name: string }) => project.name)).toEqual(['alpha', 'Beta', 'Default Project', 'Gamma']);
    const page = await user.client.get('/projects?orderBy=name&orderDirection=asc&offset=1&limit=2');
    expect(page.body).toMatchObject({ projects: [{ name: 'Beta' }, { name: 'Default Project' }], hasNextPage: true });
    const searched = await user.client.get('/projects?search=amm');
    expect(searched.body.projects.map((project: { name: string }) => project.name)).toEqual(['Gamma']);
    expect((await user.client.get('/projects?limit=101')).body.errorCode).toBe('validation');

    const gamma = searched.body.projects[0];
    const favorited = await user.client.post(`/projects/${gamma.id}/favorite`, { isFavorited: true });
    expect(favorited.body).toMatchObject({ id: gamma.id, isFavorited: true });
    expect((await user.client.get(`/projects/${gamma.id}`)).body.isFavorited).toBe(true);

    const colleague = await inviteMember(stack, user, 'analyst');
    expect((await colleague.client.get(`/projects/${gamma.id}`)).body.isFavorited).toBe(false);
    expect((await colleague.client.post(`/projects/${gamma.id}/favorite`, { isFavorited: true })).status).toBe(200);

    await user.client.post(`/projects/${gamma.id}/favorite`, { isFavorited: false });
    expect((await user.client.get(`/projects/${gamma.id}`)).body.isFavorited).toBe(false);
  });

  it('leaves projects beyond the tier limit to billing (off here: the 26th is created), and answers noPermission to members who cannot create', async () => {
    const user = await signUp(stack);
    await Project.query(stack.db).insert(
      Array.from({ length: 24 }, (_, index) => ({
        id: `project-${crypto.randomUUID()}`,
        organizationId: user.organizationId,
        name: `p${index}`,
        slug: `p${index}`,
        isDefault: false,
      })),
    );
    // ENGRAM_BILLING=on refuses it with projectLimitReached (services/tenancy/tier-limits.test.ts).
    expect((await user.client.post('/projects', { name: 'beyond the free tier' })).status).toBe(201);

    const analyst = await inviteMember(stack, user, 'analyst');
    const denied = await analyst.client.post('/projects', { name: 'nope' });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ errorCode: 'noPermission' });
  });

  it("lists the project's agents", async () => {
    const user = await signUp(stack);
    const agent = await createAgent(user);
    const { defaultProjectId } = (await user.client.get('/organizations/self/preferences')).body;
    const agents = await user.client.get(`/projects/${defaultProjectId}/source-agents`);
    expect(agents.body).toEqual({
      agents: [{ id: agent.id, name: agent.name, createdAt: expect.any(String), updatedAt: expect.any(String) }],
      hasNextPage: false,
    });
  });
});

describe('API keys', () => {
  it('shows the key once, lists and gets without it, and deletes', async () => {
    const user = await signUp(stack);
    const created = await user.client.post('/api-keys', { name: 'ci' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^apikey-/),
      name: 'ci',
      keyPrefix: created.body.apiKey.slice(0, 16),
      apiKey: expect.stringMatching(/^sk-engram-/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const { apiKey, ...shown } = created.body;
    const response = await fetch(`${stack.baseUrl}/v1/agents/`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(response.status).toBe(200);

    const list = await user.client.get('/api-keys');
    expect(list.body).toEqual({ apiKeys: [shown], hasNextPage: false });
    expect(JSON.stringify(list.body)).not.toContain(apiKey);
    expect((await user.client.get(`/api-keys/${created.body.id}`)).body).toEqual(shown);

    expect((await user.client.delete(`/api-keys/${created.body.id}`)).body).toEqual({ success: true });
    expect((await user.client.get(`/api-keys/${created.body.id}`)).status).toBe(404);
    expect((await fetch(`${stack.baseUrl}/v1/agents/`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(401);
  });

  it('creates keys beyond the tier limit while billing is off (on, the 26th is refused with maxUsage)', async () => {
    const user = await signUp(stack);
    for (let index = 0; index < 25; index += 1) {
      await stack.services.apiKeys.issue({ organizationId: user.organizationId, userId: user.userId, name: `k${index}` });
    }
    expect((await user.client.post('/api-keys', { name: 'beyond the free tier' })).status).toBe(201);
    expect(await ApiKey.query(stack.db).forOrg(user.organizationId).resultSize()).toBe(26);
  });
});

describe('environment variables', () => {
  it('adds, sets, finds by key, lists without values and deletes', async () => {
    const user = await signUp(stack);
    const created = await user.client.post('/environment-variables', { key: 'OPENAI_KEY_2', value: 'secret-value' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), key: 'OPENAI_KEY_2', updatedAt: expect.any(String) });
    const stored = await EnvironmentVariable.query(stack.db).findById(created.body.id);
    expect(stored?.valueEnc).not.toContain('secret-value');

    const duplicate = await user.client.post('/environment-variables', { key: 'OPENAI_KEY_2', value: 'other' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body).toEqual({ message: 'A variable named OPENAI_KEY_2 already exists', errorCode: 'keyAlreadyExists' });

    const badKey = await user.client.post('/environment-variables', { key: 'not-valid', value: 'x' });
    expect(badKey.status).toBe(400);
    expect(badKey.body).toMatchObject({ errorCode: 'validation', message: 'Key must contain only letters, digits and underscores' });

    const set = await user.client.put('/environment-variables', { key: 'OPENAI_KEY_2', value: 'rotated' });
    expect(set.body.id).toBe(created.body.id);
    const added = await user.client.put('/environment-variables', { key: 'NEW_ONE', value: 'v' });
    expect(added.status).toBe(200);

    expect((await user.client.get('/environment-variables/OPENAI_KEY_2')).body).toMatchObject({ id: created.body.id, key: 'OPENAI_KEY_2' });
    expect((await user.client.get('/environment-variables/MISSING')).status).toBe(404);
    const list = await user.client.get('/environment-variables?search=openai');
    expect(list.body).toEqual({ environmentVariables: [expect.objectContaining({ key: 'OPENAI_KEY_2' })], hasNextPage: false });
    expect(JSON.stringify(list.body)).not.toContain('rotated');

    expect((await user.client.delete(`/environment-variables/${created.body.id}`)).body).toEqual({ success: true });
    expect((await user.client.get('/environment-variables/OPENAI_KEY_2')).status).toBe(404);
  });
});

describe('development servers', () => {
  it('creates with a 3-50 character name and a valid URL, updates, lists, gets and deletes', async () => {
    const user = await signUp(stack);
    const shortName = await user.client.post('/development-servers', { name: 'ab', url: 'http://localhost:8283' });
    expect(shortName.body).toMatchObject({ errorCode: 'validation', message: 'Name must be at least 3 characters long' });
    const longName = await user.client.post('/development-servers', { name: 'x'.repeat(51), url: 'http://localhost:8283' });
    expect(longName.body).toMatchObject({ errorCode: 'validation', message: 'Name must be at most 50 characters long' });
    const badUrl = await user.client.post('/development-servers', { name: 'laptop', url: 'not a url' });
    expect(badUrl.body).toMatchObject({ errorCode: 'validation', issues: [expect.objectContaining({ loc: ['body', 'url'] })] });

    const created = await user.client.post('/development-servers', { name: 'laptop', url: 'http://localhost:8283', password: 'pw' });
    expect(created.status).toBe(201);
    const server = created.body.developmentServer;
    expect(server).toEqual({
      id: expect.any(String),
      name: 'laptop',
      url: 'http://localhost:8283',
      password: 'pw',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const updated = await user.client.put(`/development-servers/${server.id}`, { name: 'desktop' });
    expect(updated.body.developmentServer).toMatchObject({ name: 'desktop', url: 'http://localhost:8283', password: 'pw' });
    expect((await user.client.get(`/development-servers/${server.id}`)).body.developmentServer.name).toBe('desktop');
    expect((await user.client.get('/development-servers')).body).toEqual({
      developmentServers: [expect.objectContaining({ id: server.id })],
      hasNextPage: false,
    });
    expect((await user.client.delete(`/development-servers/${server.id}`)).body).toEqual({ success: true });
    expect((await user.client.get(`/development-servers/${server.id}`)).status).toBe(404);
  });
});

describe('feature flags and ADE preferences', () => {
  it('serves the feature flags', async () => {
    const user = await signUp(stack);
    const flags = await user.client.get('/feature-flags');
    expect(flags.status).toBe(200);
    expect(flags.body).toMatchObject({ PROJECTS: true, BILLING: true });
  });

  it("keeps each member's own layout per agent", async () => {
    const admin = await signUp(stack);
    const agent = await createAgent(admin);
    expect((await admin.client.get(`/ade-preferences/${agent.id}`)).body).toEqual({ displayConfig: {} });

    const saved = await admin.client.put(`/ade-preferences/${agent.id}`, { displayConfig: { panels: [{ id: 'memory', width: 40 }] } });
    expect(saved.body).toEqual({ displayConfig: { panels: [{ id: 'memory', width: 40 }] } });
    expect((await admin.client.get(`/ade-preferences/${agent.id}`)).body).toEqual(saved.body);

    const analyst = await inviteMember(stack, admin, 'analyst');
    expect((await analyst.client.get(`/ade-preferences/${agent.id}`)).body).toEqual({ displayConfig: {} });

    const missing = await admin.client.get(`/ade-preferences/agent-${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Agent not found' });
  });
});
