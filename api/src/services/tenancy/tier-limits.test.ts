import { billingPeriod } from '@engram/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingAccount, Block, Project, SourceFile, Tool } from '@engram/db';
import { startAgentTestContext, type AgentTestContext } from '@engram/testing/agent-test-context';
import { signUp, uniqueEmail } from '../../routes/console/console-test-support.js';
import { TIER_LIMITS } from './tier-limits.js';

/**
 * Every tier limit of spec 000 §9 at its boundary with ENGRAM_BILLING=on, on the free tier: the last one allowed is
 * created, the next is refused with the spec's code on the console API and 402 {message, limit} on /v1 (429 with
 * Retry-After for the per-minute rates). Organizations are filled to one below a limit with copies of a real row.
 * (Agents: billing-enforcement.test.ts. A/B tests: routes/console/ab-tests.test.ts.)
 */
let ctx: AgentTestContext;
const FREE = TIER_LIMITS.free;

beforeAll(async () => {
  ctx = await startAgentTestContext({ apiEnv: { ENGRAM_BILLING: 'on' }, models: ['gpt-4o-mini', 'gpt-4o'] });
  ctx.model.onRequest(() => ({ type: 'text', text: 'Done.', usage: { prompt_tokens: 20, completion_tokens: 2, total_tokens: 22 } }));
}, 120_000);

afterAll(async () => {
  await ctx?.stop();
});

/** `count` copies of a row, each with a fresh id of the row's kind and fresh values for the given text columns. */
async function copies(table: string, id: string, count: number, fresh: string[] = []): Promise<void> {
  const overrides = ['id', ...fresh].map((column) => `'${column}', ${column === 'id' ? `split_part(a.id, '-', 1)` : `a.${column}`} || '-' || gen_random_uuid()`);
  await ctx.stack.db.raw(
    `insert into ${table}
     select (jsonb_populate_record(null::${table}, to_jsonb(a) || jsonb_build_object(${overrides.join(', ')}))).*
       from ${table} a, generate_series(1, ?) where a.id = ?`,
    [count, id],
  );
}

const tenant = () => ctx.stack.createTenant();

async function upload(key: string, folderId: string, bytes: number) {
  const form = new FormData();
  form.append('file', new Blob([Buffer.alloc(bytes, 'a')], { type: 'text/plain' }), `f-${Math.random().toString(36).slice(2)}.txt`);
  const response = await fetch(`${ctx.stack.baseUrl}/v1/folders/${folderId}/upload`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
}

async function folderOf(key: string): Promise<string> {
  const folder = await ctx.call(key, 'POST', '/folders/', { name: `files-${Math.random().toString(36).slice(2)}` });
  expect(folder.status, JSON.stringify(folder.body)).toBe(200);
  return folder.body.id;
}

describe('console API limits', () => {
  it(`projects: the ${FREE.projects}th is created, the next is refused with projectLimitReached`, async () => {
    const user = await signUp(ctx.stack);
    const first = await user.client.post('/projects', { name: 'second' });
    expect(first.status).toBe(201);
    await copies('projects', first.body.id, FREE.projects - 3, ['name', 'slug']);
    expect(await Project.query(ctx.stack.db).forOrg(user.organizationId).resultSize()).toBe(FREE.projects - 1);

    expect((await user.client.post('/projects', { name: 'last' })).status).toBe(201);
    const refused = await user.client.post('/projects', { name: 'one too many' });
    expect(refused).toMatchObject({ status: 400, body: { message: `Your plan allows ${FREE.projects} projects`, errorCode: 'projectLimitReached', limit: FREE.projects } });
  });

  it(`API keys: the ${FREE.apiKeys}th is created, the next is refused with maxUsage`, async () => {
    const user = await signUp(ctx.stack);
    for (let index = 0; index < FREE.apiKeys - 1; index++) {
      await ctx.stack.services.apiKeys.issue({ organizationId: user.organizationId, userId: user.userId, name: `k${index}` });
    }
    expect((await user.client.post('/api-keys', { name: 'last' })).status).toBe(201);
    const refused = await user.client.post('/api-keys', { name: 'one too many' });
    expect(refused).toMatchObject({ status: 400, body: { message: `Your plan allows ${FREE.apiKeys} API keys`, errorCode: 'maxUsage', limit: FREE.apiKeys } });
  });

  it(`members: the ${FREE.organizationMembers}th seat (members and invites) is given, the next is refused with organizationMemberLimitReached`, async () => {
    const admin = await signUp(ctx.stack);
    for (let seat = 2; seat <= FREE.organizationMembers; seat++) {
      expect((await admin.client.post('/organizations/self/invited-members', { email: uniqueEmail() })).status).toBe(201);
    }
    const refused = await admin.client.post('/organizations/self/invited-members', { email: uniqueEmail() });
    expect(refused).toMatchObject({
      status: 400,
      body: { message: `Your plan allows ${FREE.organizationMembers} members`, errorCode: 'organizationMemberLimitReached', limit: FREE.organizationMembers },
    });
  });
});

describe('/v1 limits', () => {
  it(`data sources: the ${FREE.dataSources}th folder is created, the next is refused with 402`, async () => {
    const { apiKey } = await tenant();
    const first = await folderOf(apiKey.key);
    await copies('sources', first, FREE.dataSources - 2, ['name']);
    expect((await ctx.call(apiKey.key, 'POST', '/folders/', { name: 'last' })).status).toBe(200);
    expect(await ctx.call(apiKey.key, 'POST', '/folders/', { name: 'one-too-many' })).toEqual({
      status: 402,
      body: { message: `Your plan allows ${FREE.dataSources} data sources`, limit: FREE.dataSources },
    });
  });

  it(`templates: the ${FREE.templates}th is created, the next is refused with 402`, async () => {
    const { apiKey } = await tenant();
    const agent = await ctx.call(apiKey.key, 'POST', '/agents/', { name: 'design', model: 'openai/gpt-4o-mini', include_base_tools: false });
    const first = await ctx.call(apiKey.key, 'POST', '/templates', { type: 'agent', agent_id: agent.body.id, name: 'first' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const firstId = (await ctx.stack.db('agent_templates').where({ name: 'first' }).whereIn('organization_id', ctx.stack.db('agents').where('id', agent.body.id).select('organization_id')).first('id')).id;
    await copies('agent_templates', firstId, FREE.templates - 2, ['name']);
    expect((await ctx.call(apiKey.key, 'POST', '/templates', { type: 'agent', agent_id: agent.body.id, name: 'last' })).status).toBe(200);
    expect(await ctx.call(apiKey.key, 'POST', '/templates', { type: 'agent', agent_id: agent.body.id, name: 'over' })).toEqual({
      status: 402,
      body: { message: `Your plan allows ${FREE.templates} templates`, limit: FREE.templates },
    });
  });

  it(`tools: the ${FREE.tools}th is created, the next is refused with 402`, async () => {
    const { apiKey, organizationId } = await tenant();
    const tool = (name: string) => ({ source_code: `def ${name}():\n    """Does nothing."""\n    return 1\n` });
    const first = await ctx.call(apiKey.key, 'POST', '/tools/', tool('first_tool'));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await copies('tools', first.body.id, FREE.tools - 2, ['name']);
    expect(await Tool.query(ctx.stack.db).forOrg(organizationId).resultSize()).toBe(FREE.tools - 1);
    expect((await ctx.call(apiKey.key, 'POST', '/tools/', tool('last_tool'))).status).toBe(200);
    expect(await ctx.call(apiKey.key, 'POST', '/tools/', tool('over_tool'))).toEqual({
      status: 402,
      body: { message: `Your plan allows ${FREE.tools} tools`, limit: FREE.tools },
    });
  });

  it(`blocks: the ${FREE.blocks}th is created, the next is refused with 402, also as an agent's memory`, async () => {
    const { apiKey, organizationId } = await tenant();
    const first = await ctx.call(apiKey.key, 'POST', '/blocks/', { label: 'note', value: 'first' });
    expect(first.status).toBe(200);
    await copies('blocks', first.body.id, FREE.blocks - 2);
    expect(await Block.query(ctx.stack.db).forOrg(organizationId).resultSize()).toBe(FREE.blocks - 1);
    expect((await ctx.call(apiKey.key, 'POST', '/blocks/', { label: 'note', value: 'last' })).status).toBe(200);
    const refusal = { status: 402, body: { message: `Your plan allows ${FREE.blocks} memory blocks`, limit: FREE.blocks } };
    expect(await ctx.call(apiKey.key, 'POST', '/blocks/', { label: 'note', value: 'over' })).toEqual(refusal);
    const agent = await ctx.call(apiKey.key, 'POST', '/agents/', { model: 'openai/gpt-4o-mini', memory_blocks: [{ label: 'human', value: 'x' }] });
    expect(agent).toEqual(refusal);
  });

  for (const tier of ['premium', 'free'] as const) {
    const allowance = tier === 'premium' ? FREE.premiumInferencesPerMonth : FREE.freeInferencesPerMonth;
    it(`${tier} model requests: the ${allowance}th of the month runs, the next run is refused with 402 before any model call`, async () => {
      const { apiKey, organizationId } = await tenant();
      const model = tier === 'premium' ? 'openai/gpt-4o' : 'openai/gpt-4o-mini';
      const agent = await ctx.call(apiKey.key, 'POST', '/agents/', { model, context_window_limit: 16_000, include_base_tools: false });
      await BillingAccount.query(ctx.stack.db)
        .forOrg(organizationId)
        .patch({ usagePeriod: billingPeriod(new Date()).key, [`${tier}Inferences`]: allowance - 1 });
      const send = () => ctx.call(apiKey.key, 'POST', `/agents/${agent.body.id}/messages`, { messages: [{ role: 'user', content: 'hi' }] });

      expect((await send()).status).toBe(200);
      expect((await ctx.stack.services.quotas.quotas(organizationId))[`${tier}ModelRequests`]).toEqual({ used: allowance, limit: allowance });
      const requests = ctx.model.requests.length;
      expect(await send()).toEqual({ status: 402, body: { message: `Your plan allows ${allowance} ${tier} model requests a month`, limit: allowance } });
      expect(ctx.model.requests.length).toBe(requests);
    }, 60_000);
  }

  it('premium requests on pro are paid with credits alone: its allowance of 0 refuses nothing', async () => {
    const { apiKey, organizationId } = await tenant();
    await ctx.stack.db('organizations').where('id', organizationId).update({ billing_tier: 'pro' });
    await BillingAccount.query(ctx.stack.db).forOrg(organizationId).patch({ usagePeriod: billingPeriod(new Date()).key, premiumInferences: 10_000 });
    const agent = await ctx.call(apiKey.key, 'POST', '/agents/', { model: 'openai/gpt-4o', context_window_limit: 16_000, include_base_tools: false });
    expect((await ctx.call(apiKey.key, 'POST', `/agents/${agent.body.id}/messages`, { messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
  }, 60_000);

  it('storage: a file that fills it is stored, the next byte is refused with 402', async () => {
    const { apiKey, organizationId } = await tenant();
    const folderId = await folderOf(apiKey.key);
    expect((await upload(apiKey.key, folderId, 10)).status).toBe(200);
    // The stored file grows to all but 20 bytes of the plan, uploaded long enough ago to be out of the per-minute rates.
    await SourceFile.query(ctx.stack.db)
      .forOrg(organizationId)
      .patch({ fileSize: FREE.storageBytes - 20, createdAt: new Date(Date.now() - 5 * 60_000) } as never);
    expect((await upload(apiKey.key, folderId, 20)).status).toBe(200);
    expect(await upload(apiKey.key, folderId, 1)).toMatchObject({ status: 402, body: { message: 'Your plan allows 1 GB of file storage', limit: FREE.storageBytes } });
  });

  it(`file size: a file of ${FREE.fileSizeBytes} bytes is stored, one byte more is refused with 402`, async () => {
    const { apiKey } = await tenant();
    const folderId = await folderOf(apiKey.key);
    expect(await upload(apiKey.key, folderId, FREE.fileSizeBytes + 1)).toMatchObject({
      status: 402,
      body: { message: 'Your plan allows files of up to 5 MB', limit: FREE.fileSizeBytes },
    });
    expect((await upload(apiKey.key, folderId, FREE.fileSizeBytes)).status).toBe(200);
  });

  it(`files per minute: the ${FREE.filesPerMinute}th upload of a minute is stored, the next is refused with 429 and Retry-After`, async () => {
    const { apiKey } = await tenant();
    const folderId = await folderOf(apiKey.key);
    for (let index = 0; index < FREE.filesPerMinute; index++) expect((await upload(apiKey.key, folderId, 10)).status).toBe(200);
    const refused = await upload(apiKey.key, folderId, 10);
    expect(refused).toMatchObject({ status: 429, body: { message: `Your plan allows ${FREE.filesPerMinute} file uploads a minute`, limit: FREE.filesPerMinute } });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
  });

  it('file bytes per minute: uploads up to 5 MB in a minute are stored, one byte more is refused with 429 and Retry-After', async () => {
    const { apiKey } = await tenant();
    const folderId = await folderOf(apiKey.key);
    const half = FREE.fileBytesPerMinute / 2;
    expect((await upload(apiKey.key, folderId, half)).status).toBe(200);
    expect((await upload(apiKey.key, folderId, half)).status).toBe(200);
    const refused = await upload(apiKey.key, folderId, 1);
    expect(refused).toMatchObject({ status: 429, body: { message: 'Your plan allows 5 MB of uploads a minute', limit: FREE.fileBytesPerMinute } });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
  });
});
