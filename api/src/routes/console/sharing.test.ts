import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Block, Identity, IdentityAgent, SharedChatConversation } from '@engram/db';
import { startAgentTestContext, type AgentTestContext } from '@engram/testing/agent-test-context';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { collectSse } from '@engram/testing/sse';
import { ANONYMOUS_MESSAGES_PER_IP } from '../../services/sharing/shared-chat-service.js';
import { inviteMember, signUp, uniqueEmail, type ConsoleUser } from './console-test-support.js';

/**
 * Shared chats and launch links (spec 000 §7) through the console API, with browsers that are signed out, signed
 * in to another organization, and members of the sharing one: each access level admits exactly whom it says on
 * every route, a change of level holds from the next request, and each visitor has a conversation of their own.
 */
let ctx: AgentTestContext;
let owner: ConsoleUser;
let ownerKey: string;
let analyst: ConsoleUser;
let restrictedMember: ConsoleUser;
let outsider: ConsoleUser;
/** ENGRAM_ADMIN_EMAILS makes this account, once signed up, the platform admin who bans organizations. */
const PLATFORM_ADMIN_EMAIL = uniqueEmail('sharing-admin');

const LEVELS = ['restricted', 'organization', 'logged-in', 'everyone'] as const;
type Level = (typeof LEVELS)[number];
type Who = 'signed out' | 'other organization' | 'analyst' | 'member without agent permissions';

/** Who each level admits: 401 asks a signed-out visitor to sign in, 404 is what anyone else not admitted gets. */
const EXPECTED: Record<Level, Record<Who, number>> = {
  restricted: { 'signed out': 401, 'other organization': 404, analyst: 200, 'member without agent permissions': 404 },
  organization: { 'signed out': 401, 'other organization': 404, analyst: 200, 'member without agent permissions': 200 },
  'logged-in': { 'signed out': 401, 'other organization': 200, analyst: 200, 'member without agent permissions': 200 },
  everyone: { 'signed out': 200, 'other organization': 200, analyst: 200, 'member without agent permissions': 200 },
};

function browsers(): Record<Who, ConsoleClient> {
  return {
    'signed out': new ConsoleClient(ctx.stack.baseUrl),
    'other organization': outsider.client,
    analyst: analyst.client,
    'member without agent permissions': restrictedMember.client,
  };
}

async function newAgent(name: string, human = 'The visitor is unknown.'): Promise<{ id: string; projectId: string }> {
  const created = await ctx.call(ownerKey, 'POST', '/agents/', { model: 'openai/gpt-4o-mini', name, memory_blocks: [{ label: 'human', value: human }] });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const row = await Agent.query(ctx.stack.db).findById(created.body.id);
  return { id: created.body.id, projectId: row!.projectId! };
}

async function shareChat(agent: { id: string; projectId: string }, accessLevel: Level): Promise<string> {
  const put = await owner.client.put(`/projects/${agent.projectId}/agents/${agent.id}/shared-chat/configuration`, { accessLevel });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return put.body.chatId;
}

/** Sends a message through the chat as the browser would, and returns the status and the streamed events. */
async function chat(client: ConsoleClient, chatId: string, message: string, headers: Record<string, string> = {}) {
  const cookie = client.jar.header();
  const response = await fetch(`${client.baseUrl}/api/chat/${chatId}/messages/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ message }),
  });
  client.jar.store(response);
  if (response.status !== 200) return { status: response.status, body: (await response.json()) as any, events: [] };
  return { status: 200, body: undefined as any, events: await collectSse(response) };
}

const assistantText = (messages: Array<{ message_type: string; content?: unknown }>) =>
  messages.filter((message) => message.message_type === 'assistant_message').map((message) => String(message.content));

beforeAll(async () => {
  ctx = await startAgentTestContext({ apiEnv: { ENGRAM_ADMIN_EMAILS: PLATFORM_ADMIN_EMAIL } });
  // The model repeats the newest user message, so each answer shows which conversation it saw.
  ctx.model.onRequest((request) => {
    const users = request.messages.filter((message) => message.role === 'user');
    const last = users.at(-1);
    const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    return { type: 'text', text: `echo ${/said:([a-z0-9-]+)/.exec(text)?.[1] ?? 'nothing'} after ${users.length} user messages` };
  });
  owner = await signUp(ctx.stack, { name: 'Owner' });
  ownerKey = (await owner.client.post('/api-keys', { name: 'owner key' })).body.apiKey;
  analyst = await inviteMember(ctx.stack, owner, 'analyst');
  restrictedMember = await inviteMember(ctx.stack, owner, 'custom');
  outsider = await signUp(ctx.stack, { name: 'Outsider' });
}, 120_000);

afterAll(async () => {
  await ctx?.stop();
});

describe('shared chat configuration', () => {
  it('starts restricted with a chat id, changes its level, and is the agent project’s alone', async () => {
    const agent = await newAgent('config-agent');
    const first = await owner.client.get(`/projects/${agent.projectId}/agents/${agent.id}/shared-chat/configuration`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ accessLevel: 'restricted', agentId: agent.id, isFromLaunchLink: false, chatId: expect.stringMatching(/^chat-/) });
    const again = await owner.client.get(`/projects/${agent.projectId}/agents/${agent.id}/shared-chat/configuration`);
    expect(again.body.chatId).toBe(first.body.chatId);

    const put = await owner.client.put(`/projects/${agent.projectId}/agents/${agent.id}/shared-chat/configuration`, { accessLevel: 'everyone' });
    expect(put.body).toEqual({ ...first.body, accessLevel: 'everyone' });
    const bad = await owner.client.put(`/projects/${agent.projectId}/agents/${agent.id}/shared-chat/configuration`, { accessLevel: 'public' });
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBe('validation');

    const otherProject = await owner.client.post('/projects', { name: 'elsewhere' });
    expect((await owner.client.get(`/projects/${otherProject.body.id}/agents/${agent.id}/shared-chat/configuration`)).status).toBe(404);
    // Reading the configuration is reading the agent; changing it is changing the agent.
    expect((await analyst.client.get(`/projects/${agent.projectId}/agents/${agent.id}/shared-chat/configuration`)).status).toBe(200);
    expect((await analyst.client.put(`/projects/${agent.projectId}/agents/${agent.id}/shared-chat/configuration`, { accessLevel: 'restricted' })).status).toBe(403);
    expect((await outsider.client.get(`/projects/${agent.projectId}/agents/${agent.id}/shared-chat/configuration`)).status).toBe(404);
    expect((await new ConsoleClient(ctx.stack.baseUrl).get(`/projects/${agent.projectId}/agents/${agent.id}/shared-chat/configuration`)).status).toBe(401);
  });
});

describe('shared chat access levels', () => {
  it('admit on every chat route exactly whom the level says, each change holding from the next request', { timeout: 120_000 }, async () => {
    const agent = await newAgent('levels-agent');
    const chatId = await shareChat(agent, 'restricted');
    const who = browsers();
    for (const level of LEVELS) {
      await shareChat(agent, level);
      for (const [name, client] of Object.entries(who) as Array<[Who, ConsoleClient]>) {
        const expected = EXPECTED[level][name];
        const opened = await client.get(`/chat/${chatId}`);
        expect(opened.status, `${level}: ${name} opens`).toBe(expected);
        expect((await client.get(`/chat/${chatId}/messages`)).status, `${level}: ${name} reads`).toBe(expected);
        if (expected === 200) {
          expect(opened.body).toMatchObject({ chatId, accessLevel: level, isFromLaunchLink: false, agentName: 'levels-agent' });
          // The agent's id is for its own organization's members.
          expect(opened.body.agentId).toBe(name === 'analyst' || name === 'member without agent permissions' ? agent.id : null);
        } else {
          expect((await chat(client, chatId, 'said:refused')).status, `${level}: ${name} sends`).toBe(expected);
          if (expected === 401) expect(opened.body).toEqual({ message: 'Sign in to open this chat', errorCode: 'unauthenticated' });
          else expect(opened.body).toEqual({ message: 'Chat not found' });
        }
      }
    }
    // Nobody refused reached the agent: no conversation was started and no run made.
    expect(await SharedChatConversation.query(ctx.stack.db).where({ chatId }).resultSize()).toBe(0);
    expect((await ctx.call(ownerKey, 'GET', `/agents/${agent.id}/messages`)).body.filter((message: { message_type: string }) => message.message_type === 'user_message')).toEqual([]);
    expect((await new ConsoleClient(ctx.stack.baseUrl).get('/chat/chat-00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('gives each visitor of an everyone chat a conversation of their own that no other visitor sees', { timeout: 120_000 }, async () => {
    const agent = await newAgent('public-agent', 'Nothing is known about the human yet.');
    const chatId = await shareChat(agent, 'everyone');
    const ann = new ConsoleClient(ctx.stack.baseUrl);
    const bob = new ConsoleClient(ctx.stack.baseUrl);
    expect((await ann.get(`/chat/${chatId}`)).body.hasConversation).toBe(false);

    const annFirst = await chat(ann, chatId, 'said:ann-one');
    expect(annFirst.status).toBe(200);
    expect(annFirst.events.at(-1)?.data).toBe('[DONE]');
    // The answer streams as token deltas of one assistant message.
    const streamed = annFirst.events.flatMap((event) => (event.data !== '[DONE]' && event.data.message_type === 'assistant_message' ? [String(event.data.content)] : []));
    expect(streamed.join('')).toBe('echo ann-one after 1 user messages');
    const bobFirst = await chat(bob, chatId, 'said:bob-one');
    expect(bobFirst.status).toBe(200);
    await chat(ann, chatId, 'said:ann-two');
    // A signed-in visitor of another organization is a visitor like any other.
    await chat(outsider.client, chatId, 'said:outsider-one');

    const annMessages = (await ann.get(`/chat/${chatId}/messages`)).body;
    expect(assistantText(annMessages)).toEqual(['echo ann-one after 1 user messages', 'echo ann-two after 2 user messages']);
    expect(JSON.stringify(annMessages)).not.toContain('bob-one');
    const bobMessages = (await bob.get(`/chat/${chatId}/messages`)).body;
    expect(assistantText(bobMessages)).toEqual(['echo bob-one after 1 user messages']);
    expect(JSON.stringify(bobMessages)).not.toContain('ann-');
    expect(assistantText((await outsider.client.get(`/chat/${chatId}/messages`)).body)).toEqual(['echo outsider-one after 1 user messages']);
    expect((await new ConsoleClient(ctx.stack.baseUrl).get(`/chat/${chatId}/messages`)).body).toEqual([]);
    expect((await ann.get(`/chat/${chatId}`)).body.hasConversation).toBe(true);

    // Three conversations, each a hidden copy of the agent (its memory, not its messages) linked to the visitor's identity.
    const conversations = await SharedChatConversation.query(ctx.stack.db).where({ chatId });
    expect(conversations).toHaveLength(3);
    expect(new Set(conversations.map((conversation) => conversation.agentId)).size).toBe(3);
    for (const conversation of conversations) {
      const copy = await Agent.query(ctx.stack.db).findById(conversation.agentId);
      expect(copy).toMatchObject({ organizationId: owner.organizationId, hidden: true, projectId: agent.projectId });
      expect(await IdentityAgent.query(ctx.stack.db).where({ agentId: conversation.agentId, identityId: conversation.identityId }).resultSize()).toBe(1);
      const human = await Block.query(ctx.stack.db).join('agent_blocks', 'agent_blocks.block_id', 'blocks.id').where('agent_blocks.agent_id', conversation.agentId).findOne({ 'blocks.label': 'human' });
      expect(human?.value).toBe('Nothing is known about the human yet.');
    }
    // The shared agent's own conversation is untouched.
    expect((await ctx.call(ownerKey, 'GET', `/agents/${agent.id}/messages`)).body.filter((message: { message_type: string }) => message.message_type === 'user_message')).toEqual([]);

    // Closing the chat to the organization holds from the very next request.
    await shareChat(agent, 'organization');
    expect((await ann.get(`/chat/${chatId}/messages`)).status).toBe(401);
    expect((await chat(ann, chatId, 'said:ann-three')).status).toBe(401);
    expect((await outsider.client.get(`/chat/${chatId}`)).status).toBe(404);
  });

  it('rate-limits signed-out visitors of an everyone chat per address', { timeout: 180_000 }, async () => {
    const agent = await newAgent('busy-agent');
    const chatId = await shareChat(agent, 'everyone');
    const visitors = [new ConsoleClient(ctx.stack.baseUrl), new ConsoleClient(ctx.stack.baseUrl)];
    for (let sent = 0; sent < ANONYMOUS_MESSAGES_PER_IP.limit; sent += 1) {
      expect((await chat(visitors[sent % 2]!, chatId, `said:m${sent}`, { 'x-forwarded-for': `203.0.113.${sent}` })).status).toBe(200);
    }
    // Another browser from the same address shares its budget; without ENGRAM_TRUST_PROXY, X-Forwarded-For is not believed.
    const refused = await chat(new ConsoleClient(ctx.stack.baseUrl), chatId, 'said:one-too-many', { 'x-forwarded-for': '198.51.100.7' });
    expect(refused.status).toBe(429);
    expect(refused.body.errorCode).toBe('tooManyRequests');
    // Signed-in visitors are known by their account, not their address.
    expect((await chat(outsider.client, chatId, 'said:signed-in')).status).toBe(200);
  });

  it('deletes its visitors\' hidden copies, their conversations and identities with the shared agent', { timeout: 120_000 }, async () => {
    const agent = await newAgent('short-lived-agent');
    const chatId = await shareChat(agent, 'everyone');
    expect((await chat(new ConsoleClient(ctx.stack.baseUrl), chatId, 'said:first')).status).toBe(200);
    expect((await chat(outsider.client, chatId, 'said:second')).status).toBe(200);
    const conversations = await SharedChatConversation.query(ctx.stack.db).where({ chatId });
    expect(conversations).toHaveLength(2);
    const kept = await newAgent('kept-agent');

    expect((await ctx.call(ownerKey, 'DELETE', `/agents/${agent.id}`)).status).toBe(200);
    const copyIds = conversations.map((conversation) => conversation.agentId);
    expect(await Agent.query(ctx.stack.db).whereIn('id', copyIds).resultSize()).toBe(0);
    expect(await SharedChatConversation.query(ctx.stack.db).whereIn('agentId', copyIds).resultSize()).toBe(0);
    expect(await Identity.query(ctx.stack.db).whereIn('id', conversations.map((conversation) => conversation.identityId)).resultSize()).toBe(0);
    expect(await Block.query(ctx.stack.db).join('agent_blocks', 'agent_blocks.block_id', 'blocks.id').whereIn('agent_blocks.agent_id', copyIds).resultSize()).toBe(0);
    expect((await new ConsoleClient(ctx.stack.baseUrl).get(`/chat/${chatId}`)).status).toBe(404);
    expect((await ctx.call(ownerKey, 'GET', `/agents/${kept.id}`)).status).toBe(200);
  });

  it('refuses an empty message', async () => {
    const agent = await newAgent('quiet-agent');
    const chatId = await shareChat(agent, 'everyone');
    const response = await chat(new ConsoleClient(ctx.stack.baseUrl), chatId, '   ');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ message: 'Message is required', errorCode: 'validation' });
  });
});

describe('behind a trusted proxy (ENGRAM_TRUST_PROXY)', () => {
  let proxied: AgentTestContext;

  beforeAll(async () => {
    proxied = await startAgentTestContext({ apiEnv: { ENGRAM_TRUST_PROXY: '127.0.0.1, ::1' } });
    proxied.model.onRequest(() => ({ type: 'text', text: 'Hello.' }));
  }, 120_000);

  afterAll(async () => {
    await proxied?.stop();
  });

  it('rate-limits signed-out visitors by the address the proxy forwards', { timeout: 180_000 }, async () => {
    const sharer = await signUp(proxied.stack, { name: 'Proxied owner' });
    const key = (await sharer.client.post('/api-keys', { name: 'proxied key' })).body.apiKey as string;
    const created = await proxied.call(key, 'POST', '/agents/', { model: 'openai/gpt-4o-mini', name: 'proxied-agent' });
    const projectId = (await Agent.query(proxied.stack.db).findById(created.body.id))!.projectId!;
    const chatId = (await sharer.client.put(`/projects/${projectId}/agents/${created.body.id}/shared-chat/configuration`, { accessLevel: 'everyone' })).body.chatId as string;
    const first = { client: new ConsoleClient(proxied.stack.baseUrl), headers: { 'x-forwarded-for': '203.0.113.10' } };
    const second = { client: new ConsoleClient(proxied.stack.baseUrl), headers: { 'x-forwarded-for': '203.0.113.20' } };
    for (let sent = 0; sent < ANONYMOUS_MESSAGES_PER_IP.limit; sent += 1) {
      expect((await chat(first.client, chatId, `said:p${sent}`, first.headers)).status).toBe(200);
    }
    expect((await chat(first.client, chatId, 'said:one-too-many', first.headers)).status).toBe(429);
    // Another visitor behind the same proxy has a budget of their own.
    expect((await chat(second.client, chatId, 'said:other-visitor', second.headers)).status).toBe(200);
  });
});

describe('launch links', () => {
  let templateId: string;
  let templateName: string;

  beforeAll(async () => {
    const agent = await newAgent('launch-source', 'The customer is {{customer}} from {{city}}.');
    templateName = `launch-${Date.now().toString(36)}`;
    const template = await owner.client.post('/agent-templates', { name: templateName, agentId: agent.id, description: 'A helpful concierge' });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    templateId = template.body.id;
    const working = await owner.client.get(`/agent-templates/${templateId}`);
    expect(working.status).toBe(200);
  });

  it('is made once per template and changes its level', async () => {
    expect((await owner.client.get(`/agent-templates/${templateId}/launch-link`)).status).toBe(404);
    const made = await owner.client.post(`/agent-templates/${templateId}/launch-link`, {});
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ agentTemplateId: templateId, accessLevel: 'restricted', launchLink: `/launch/${made.body.launchId}`, launchId: expect.stringMatching(/^launch-/) });
    const again = await owner.client.post(`/agent-templates/${templateId}/launch-link`, { accessLevel: 'everyone' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(made.body);
    expect((await owner.client.put(`/agent-templates/${templateId}/launch-link`, { accessLevel: 'logged-in' })).body.accessLevel).toBe('logged-in');
    expect((await owner.client.get(`/agent-templates/${templateId}/launch-link`)).body).toEqual({ ...made.body, accessLevel: 'logged-in' });
    expect((await analyst.client.put(`/agent-templates/${templateId}/launch-link`, { accessLevel: 'everyone' })).status).toBe(403);
    expect((await outsider.client.get(`/agent-templates/${templateId}/launch-link`)).status).toBe(404);
  });

  it('admits on the metadata and launch routes exactly whom the level says', { timeout: 180_000 }, async () => {
    const { body: link } = await owner.client.post(`/agent-templates/${templateId}/launch-link`, {});
    const launchExpected: Record<Level, Record<Who, number>> = {
      ...EXPECTED,
      // Launching a restricted link takes deploying the template: an analyst cannot create agents.
      restricted: { ...EXPECTED.restricted, analyst: 404 },
    };
    for (const level of LEVELS) {
      await owner.client.put(`/agent-templates/${templateId}/launch-link`, { accessLevel: level });
      for (const [name, client] of Object.entries(browsers()) as Array<[Who, ConsoleClient]>) {
        const metadata = await client.get(`/launch-link-metadata/${link.launchId}`);
        expect(metadata.status, `${level}: ${name} reads`).toBe(launchExpected[level][name]);
        if (metadata.status === 200) {
          expect(metadata.body).toEqual({
            launchId: link.launchId,
            name: templateName,
            description: 'A helpful concierge',
            accessLevel: level,
            memoryVariables: [
              { key: 'customer', defaultValue: null, type: 'string' },
              { key: 'city', defaultValue: null, type: 'string' },
            ],
          });
        }
        if (launchExpected[level][name] !== 200) {
          expect((await client.post(`/launch-links/${link.launchId}/share-chat`, { memoryVariables: { customer: 'X', city: 'Y' } })).status, `${level}: ${name} launches`).toBe(
            launchExpected[level][name],
          );
        }
      }
    }
    const owner2 = await owner.client.post(`/launch-links/${link.launchId}/share-chat`, { memoryVariables: { customer: 'Owner', city: 'Home' } });
    expect(owner2.status).toBe(200);
    expect(owner2.body.agentId).toMatch(/^agent-/);
  });

  it('gives each visitor their own agent from the template, with their memory variables, and its chat', { timeout: 120_000 }, async () => {
    const { body: link } = await owner.client.post(`/agent-templates/${templateId}/launch-link`, {});
    await owner.client.put(`/agent-templates/${templateId}/launch-link`, { accessLevel: 'everyone' });
    const ada = new ConsoleClient(ctx.stack.baseUrl);
    const lin = new ConsoleClient(ctx.stack.baseUrl);

    const missing = await ada.post(`/launch-links/${link.launchId}/share-chat`, { memoryVariables: { customer: 'Ada' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ errorCode: 'validation', message: 'Missing memory variable without a default: city' });

    const adaLaunch = await ada.post(`/launch-links/${link.launchId}/share-chat`, { memoryVariables: { customer: 'Ada', city: 'London' } });
    expect(adaLaunch.status, JSON.stringify(adaLaunch.body)).toBe(200);
    expect(adaLaunch.body.agentId).toBeNull();
    const adaAgain = await ada.post(`/launch-links/${link.launchId}/share-chat`, { memoryVariables: { customer: 'Ada', city: 'London' } });
    expect(adaAgain.body.chatId).toBe(adaLaunch.body.chatId);
    const linLaunch = await lin.post(`/launch-links/${link.launchId}/share-chat`, { memoryVariables: { customer: 'Lin', city: 'Taipei' } });
    expect(linLaunch.body.chatId).not.toBe(adaLaunch.body.chatId);

    const adaChat = await ada.get(`/chat/${adaLaunch.body.chatId}`);
    expect(adaChat.body).toMatchObject({ isFromLaunchLink: true, accessLevel: 'everyone', hasConversation: true });
    // A launched agent is its visitor's alone, even at level everyone.
    expect((await lin.get(`/chat/${adaLaunch.body.chatId}`)).status).toBe(404);
    expect((await owner.client.get(`/chat/${adaLaunch.body.chatId}`)).status).toBe(404);

    const { SharedChat } = await import('@engram/db');
    const adaAgentId = (await SharedChat.query(ctx.stack.db).findById(adaLaunch.body.chatId))!.agentId;
    const linAgentId = (await SharedChat.query(ctx.stack.db).findById(linLaunch.body.chatId))!.agentId;
    expect(adaAgentId).not.toBe(linAgentId);
    const memory = async (agentId: string) =>
      (await Block.query(ctx.stack.db).join('agent_blocks', 'agent_blocks.block_id', 'blocks.id').where('agent_blocks.agent_id', agentId).findOne({ 'blocks.label': 'human' }))?.value;
    expect(await memory(adaAgentId)).toBe('The customer is Ada from London.');
    expect(await memory(linAgentId)).toBe('The customer is Lin from Taipei.');
    expect(await IdentityAgent.query(ctx.stack.db).where({ agentId: adaAgentId }).resultSize()).toBe(1);

    // Ada chats with her agent itself: no copy is made for a launched agent.
    const sent = await chat(ada, adaLaunch.body.chatId, 'said:ada-hello');
    expect(sent.status).toBe(200);
    expect(assistantText((await ada.get(`/chat/${adaLaunch.body.chatId}/messages`)).body)).toEqual(['echo ada-hello after 1 user messages']);
    expect(await SharedChatConversation.query(ctx.stack.db).where({ chatId: adaLaunch.body.chatId }).resultSize()).toBe(0);
    expect((await chat(lin, adaLaunch.body.chatId, 'said:intruder')).status).toBe(404);
  });
});

describe('a banned organization', () => {
  it("answers its shared chats and launch links as unknown ids until it is unbanned", { timeout: 180_000 }, async () => {
    const platformAdmin = await signUp(ctx.stack, { name: 'Platform admin', email: PLATFORM_ADMIN_EMAIL });
    const sharer = await signUp(ctx.stack, { name: 'Soon banned' });
    const key = (await sharer.client.post('/api-keys', { name: 'banned key' })).body.apiKey as string;
    const created = await ctx.call(key, 'POST', '/agents/', { model: 'openai/gpt-4o-mini', name: 'banned-agent', memory_blocks: [{ label: 'human', value: 'Unknown.' }] });
    const projectId = (await Agent.query(ctx.stack.db).findById(created.body.id))!.projectId!;
    const chatId = (await sharer.client.put(`/projects/${projectId}/agents/${created.body.id}/shared-chat/configuration`, { accessLevel: 'everyone' })).body.chatId as string;
    const template = await sharer.client.post('/agent-templates', { name: `banned-${Date.now().toString(36)}`, agentId: created.body.id });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const launchId = (await sharer.client.post(`/agent-templates/${template.body.id}/launch-link`, { accessLevel: 'everyone' })).body.launchId as string;

    const visitor = new ConsoleClient(ctx.stack.baseUrl);
    expect((await chat(visitor, chatId, 'said:before-ban')).status).toBe(200);
    const launched = await visitor.post(`/launch-links/${launchId}/share-chat`, {});
    expect(launched.status, JSON.stringify(launched.body)).toBe(200);

    /** Every public answer of the organization's chat and link, as status codes. */
    const answers = async () => ({
      chat: (await visitor.get(`/chat/${chatId}`)).status,
      messages: (await visitor.get(`/chat/${chatId}/messages`)).status,
      launchedChat: (await visitor.get(`/chat/${launched.body.chatId}`)).status,
      metadata: (await visitor.get(`/launch-link-metadata/${launchId}`)).status,
      launch: (await visitor.post(`/launch-links/${launchId}/share-chat`, {})).status,
    });
    expect(await answers()).toEqual({ chat: 200, messages: 200, launchedChat: 200, metadata: 200, launch: 200 });

    expect((await platformAdmin.client.post(`/admin/organizations/${sharer.organizationId}/ban`)).status).toBe(200);
    expect(await answers()).toEqual({ chat: 404, messages: 404, launchedChat: 404, metadata: 404, launch: 404 });
    const sent = await chat(visitor, chatId, 'said:after-ban');
    expect(sent.status).toBe(404);
    // Just what an unknown id answers, for any visitor: nothing tells of the ban.
    const unknown = await visitor.get('/chat/chat-00000000-0000-4000-8000-000000000000');
    expect((await visitor.get(`/chat/${chatId}`)).body).toEqual(unknown.body);
    expect(sent.body).toEqual(unknown.body);
    expect((await outsider.client.get(`/chat/${chatId}`)).body).toEqual(unknown.body);
    expect((await visitor.get(`/launch-link-metadata/${launchId}`)).body).toEqual((await visitor.get('/launch-link-metadata/launch-00000000-0000-4000-8000-000000000000')).body);

    expect((await platformAdmin.client.post(`/admin/organizations/${sharer.organizationId}/unban`)).status).toBe(200);
    expect(await answers()).toEqual({ chat: 200, messages: 200, launchedChat: 200, metadata: 200, launch: 200 });
    expect(assistantText((await visitor.get(`/chat/${chatId}/messages`)).body)).toEqual(['echo before-ban after 1 user messages']);
  });
});
