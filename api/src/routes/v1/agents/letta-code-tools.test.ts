import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { createAgent } from '@engram/testing/factories/index';
import { FAKE_SEARCH_PAGES, startFakeSearchProvider } from '@engram/testing/search-providers';

/** A web site on loopback: an article page with navigation and scripts around it, a text file, redirects, an image. */
const pageHits: string[] = [];
const site = createServer((request, response) => {
  pageHits.push(request.url ?? '');
  if (request.url === '/article') {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html><head><title>Brewing tea</title><script>window.tracking = "SECRET_SCRIPT"</script><style>body{color:red}</style></head>
<body><nav><a href="/">Home</a> <a href="/shop">Shop menu</a></nav>
<article><h1>Brewing tea</h1>
<p>Green tea is best brewed at about 80 degrees Celsius for two minutes; boiling water makes it bitter. See <a href="/guide">the guide</a>.</p>
<p>Black tea takes water just off the boil and three to five minutes, depending on the leaf and on how strong you like it.</p>
<ul><li>Sencha</li><li>Assam</li></ul></article>
<footer>Copyright Tea Corp</footer></body></html>`);
  } else if (request.url === '/notes.txt') {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('plain <b>notes</b>');
  } else if (request.url === '/moved') {
    response.writeHead(302, { location: '/article' });
    response.end();
  } else if (request.url === '/to-private') {
    response.writeHead(302, { location: 'http://10.20.30.40/admin' });
    response.end();
  } else if (request.url === '/logo.png') {
    response.writeHead(200, { 'content-type': 'image/png' });
    response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  } else {
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('no such page');
  }
});
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
const tavily = await startFakeSearchProvider('tavily');

// The stack's own organization may reach loopback (the page server); another one may not, as in production.
const { stack, model, client, clientFor, api, post, stop } = await startAgentTestContext({
  apiEnv: { ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION: '127.0.0.0/8,::1', ...tavily.env },
});
const otherTenant = await stack.createTenant('not allowed loopback');
afterAll(async () => {
  await stop();
  await tavily.close();
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

const toolNamesOf = async (agentId: string, key?: string) =>
  ((await (await api(`/agents/${agentId}/tools`, key ? { key } : {})).json()) as Array<{ name: string; tool_type: string }>)
    .map((tool) => `${tool.name}:${tool.tool_type}`)
    .sort();

/** The body Letta Code 0.32 sends for its default agent (`src/agent/create-agent-request.ts`). */
const lettaCodeAgent = (tools: string[]) => ({
  agent_type: 'letta_v1_agent',
  name: 'Letta Code',
  description: 'A coding agent',
  model: 'openai/gpt-4o-mini',
  system: 'You are Letta Code.',
  memory_blocks: [{ label: 'persona', value: 'I am a coding agent.', description: 'Who I am.' }],
  tags: ['origin:letta-code'],
  tools,
  include_base_tools: false,
  include_base_tool_rules: false,
  initial_message_sequence: [],
  parallel_tool_calls: true,
  compaction_settings: { model: 'letta/auto' },
  context_window_limit: 32000,
});

describe("Letta's built-in tools", () => {
  it('are listed among the tools with their Letta types, and added by add-base-tools', async () => {
    const tenant = await stack.createTenant();
    const added = await post('/tools/add-base-tools', undefined, tenant.apiKey.key);
    expect(added.status).toBe(200);
    const addedNames = ((await added.json()) as Array<{ name: string }>).map((tool) => tool.name);
    expect(addedNames).toEqual(expect.arrayContaining(['web_search', 'fetch_webpage', 'run_code', 'memory', 'memory_apply_patch']));

    const listed = (await (await api('/tools/?limit=100', { key: tenant.apiKey.key })).json()) as Array<{
      name: string;
      tool_type: string;
      json_schema: { name: string; parameters: { properties: Record<string, unknown>; required: string[] } };
    }>;
    const byName = new Map(listed.map((tool) => [tool.name, tool]));
    expect(byName.get('web_search')).toMatchObject({ tool_type: 'letta_builtin', json_schema: { name: 'web_search', parameters: { required: ['query'] } } });
    expect(Object.keys(byName.get('web_search')!.json_schema.parameters.properties)).toEqual([
      'query', 'num_results', 'category', 'include_text', 'include_domains', 'exclude_domains', 'start_published_date', 'end_published_date', 'user_location',
    ]);
    expect(byName.get('fetch_webpage')).toMatchObject({ tool_type: 'letta_builtin', json_schema: { parameters: { required: ['url'] } } });
    expect(byName.get('run_code')).toMatchObject({ tool_type: 'letta_builtin', json_schema: { parameters: { required: ['code', 'language'] } } });
    expect(byName.get('memory_apply_patch')).toMatchObject({ tool_type: 'letta_memory_core', json_schema: { parameters: { required: ['label', 'patch'] } } });
    expect(byName.get('memory')).toMatchObject({ tool_type: 'letta_memory_core', json_schema: { parameters: { required: ['command'] } } });
    expect(Object.keys(byName.get('memory')!.json_schema.parameters.properties)).toEqual([
      'command', 'path', 'file_text', 'description', 'old_string', 'new_string', 'insert_line', 'insert_text', 'old_path', 'new_path',
    ]);
  });

  it("attach by name to an agent created exactly as Letta Code creates its default agent", async () => {
    const tenant = await stack.createTenant();
    const created = await post('/agents/', lettaCodeAgent(['web_search', 'fetch_webpage']), tenant.apiKey.key);
    expect(created.status).toBe(200);
    const agent = await created.json();
    expect(agent).toMatchObject({ agent_type: 'letta_v1_agent', tags: ['origin:letta-code'], tool_rules: [] });
    expect(agent.llm_config.context_window).toBe(32000);
    expect(await toolNamesOf(agent.id, tenant.apiKey.key)).toEqual(['fetch_webpage:letta_builtin', 'web_search:letta_builtin']);
  });

  it('attach the omni memory tool by name, as `--base-tools memory` asks', async () => {
    const created = await post('/agents/', lettaCodeAgent(['memory', 'memory_apply_patch', 'web_search', 'fetch_webpage']));
    expect(created.status).toBe(200);
    expect(await toolNamesOf((await created.json()).id)).toEqual([
      'fetch_webpage:letta_builtin', 'memory:letta_memory_core', 'memory_apply_patch:letta_memory_core', 'web_search:letta_builtin',
    ]);
  });
});

type ToolReturn = { message_type: string; status?: string; tool_return?: string };

/** One turn in which the model calls `name` with each of `calls`' arguments, in order; their tool returns. */
async function callTool(name: string, calls: Array<Record<string, unknown>>, apiKey = stack.apiKey): Promise<ToolReturn[]> {
  const agent = await createAgent({ baseUrl: stack.baseUrl, apiKey }, { tools: [name], include_base_tools: false });
  model.enqueue({ type: 'tool_calls', calls: calls.map((args) => ({ name, arguments: args })) }, { type: 'text', text: 'Done.' });
  const letta = apiKey === stack.apiKey ? client : clientFor(apiKey);
  const response = await letta.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'Go.' }] });
  return (response.messages as ToolReturn[]).filter((message) => message.message_type === 'tool_return_message');
}

describe('fetch_webpage', () => {
  it("returns a page's readable content as markdown, without its navigation, scripts or styles, following redirects", async () => {
    const [article, moved, text] = await callTool('fetch_webpage', [{ url: `${siteUrl}/article` }, { url: `${siteUrl}/moved` }, { url: `${siteUrl}/notes.txt` }]);
    expect(article).toMatchObject({ status: 'success' });
    const page = article!.tool_return!;
    expect(page).toContain('# Brewing tea');
    expect(page).toContain(`Source: ${siteUrl}/article`);
    expect(page).toContain(`Green tea is best brewed at about 80 degrees Celsius for two minutes; boiling water makes it bitter. See [the guide](${siteUrl}/guide).`);
    expect(page).toContain('-   Sencha');
    for (const noise of ['SECRET_SCRIPT', 'color:red', 'Shop menu', 'Copyright Tea Corp']) expect(page).not.toContain(noise);
    expect(moved!.tool_return).toContain('Green tea is best brewed');
    expect(moved!.tool_return).toContain(`Source: ${siteUrl}/article`);
    expect(text).toMatchObject({ status: 'success', tool_return: 'plain <b>notes</b>' });
    // The model reads the page in its next call.
    expect(JSON.stringify(model.requests.at(-1)?.messages)).toContain('Green tea is best brewed');
  });

  it('answers errors the model can read for missing pages, images and URLs that are not http', async () => {
    const [missing, image, ftp, garbage] = await callTool('fetch_webpage', [
      { url: `${siteUrl}/nothing` }, { url: `${siteUrl}/logo.png` }, { url: 'ftp://127.0.0.1/file' }, { url: 'not a url' },
    ]);
    expect(missing).toMatchObject({ status: 'error' });
    expect(missing!.tool_return).toContain('answered HTTP 404');
    expect(image!.tool_return).toContain('the page is image/png, not text or HTML');
    expect(ftp!.tool_return).toContain('only http:// and https:// pages can be fetched');
    expect(garbage!.tool_return).toContain('is not a URL');
  });

  it('refuses private and loopback addresses the operator did not allow, before connecting, and on a redirect', async () => {
    const hitsBefore = pageHits.length;
    const [loopback] = await callTool('fetch_webpage', [{ url: `${siteUrl}/article` }], otherTenant.apiKey.key);
    expect(loopback).toMatchObject({ status: 'error' });
    expect(loopback!.tool_return).toContain('it is a loopback address, which this server does not reach for organizations unless its operator allows it (ENGRAM_EGRESS_ALLOW)');
    expect(pageHits.length).toBe(hitsBefore);

    const [direct, redirected] = await callTool('fetch_webpage', [{ url: 'http://10.20.30.40/admin' }, { url: `${siteUrl}/to-private` }]);
    expect(direct!.tool_return).toContain('Refused to connect to 10.20.30.40: it is a private network address');
    expect(redirected!.tool_return).toContain('Refused to connect to 10.20.30.40: it is a private network address');
    expect(stack.egressRefusals).toEqual(
      expect.arrayContaining([
        { organizationId: otherTenant.organizationId, host: '127.0.0.1', address: '127.0.0.1', reason: 'loopback' },
        { organizationId: stack.tenant.organizationId, host: '10.20.30.40', address: '10.20.30.40', reason: 'private' },
      ]),
    );
  });
});

describe('web_search', () => {
  it("searches through the configured provider (Tavily here) and answers Letta's result fields as JSON", async () => {
    const [searched] = await callTool('web_search', [{ query: 'how to brew tea', num_results: 2, include_domains: ['example.com'] }]);
    expect(searched).toMatchObject({ status: 'success' });
    const answer = JSON.parse(searched!.tool_return!);
    expect(answer).toEqual({
      query: 'how to brew tea',
      results: FAKE_SEARCH_PAGES.map((page) => ({ title: page.title, url: page.url, published_date: null, highlights: [page.snippet], content: page.snippet })),
    });
    expect(tavily.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/search',
      headers: { authorization: `Bearer ${tavily.apiKey}` },
      body: { query: 'how to brew tea', max_results: 2, include_domains: ['example.com'] },
    });
  });

  it('runs the same through the API\'s run-tool endpoint', async () => {
    const agent = await createAgent(stack, { tools: ['web_search'], include_base_tools: false });
    const ran = await post(`/agents/${agent.id}/tools/web_search/run`, { args: { query: 'tea' } });
    expect(ran.status).toBe(200);
    const result = await ran.json();
    expect(result.status).toBe('success');
    expect(JSON.parse(result.func_return).results).toHaveLength(2);
  });
});

describe('run_code', () => {
  it('runs python, JavaScript and TypeScript programs in the tool sandbox and returns what they printed', async () => {
    const [python, javascript, typescript] = await callTool('run_code', [
      { language: 'python', code: 'import math\nprint(math.factorial(5))\nprint("done")' },
      { language: 'js', code: 'const doubled = [1, 2, 3].map((n) => n * 2);\nconsole.log(doubled.join(","));' },
      { language: 'ts', code: 'const greet = (name: string): string => `hello ${name}`;\nconsole.log(greet("ts"));\nconsole.error("to stderr");' },
    ]);
    expect(python).toMatchObject({ status: 'success' });
    expect(JSON.parse(python!.tool_return!)).toEqual({ stdout: '120\ndone\n', stderr: '', error: null });
    expect(JSON.parse(javascript!.tool_return!)).toMatchObject({ stdout: '2,4,6\n', error: null });
    expect(JSON.parse(typescript!.tool_return!)).toMatchObject({ stdout: 'hello ts\n', stderr: 'to stderr\n', error: null });
  });

  it('reports a failing program, and a language it does not run, as errors', async () => {
    const [raised, unknown] = await callTool('run_code', [
      { language: 'python', code: 'print("before")\nraise ValueError("boom")' },
      { language: 'cobol', code: 'DISPLAY "HI".' },
    ]);
    expect(raised).toMatchObject({ status: 'error' });
    const report = JSON.parse(raised!.tool_return!);
    expect(report.stdout).toBe('before\n');
    expect(report.error).toContain('ValueError');
    expect(report.error).toContain('boom');
    expect(unknown!.tool_return).toContain('language must be python, js or ts');
  });
});
