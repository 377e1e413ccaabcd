import { afterAll, describe, expect, it } from 'vitest';
import { BASE_TOOLS } from '@engram/core';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, api, send, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

let counter = 0;
const unique = (stem: string) => `${stem}_${++counter}_${Date.now().toString(36)}`;

/** A documented Python tool named `name`. */
const pythonTool = (name: string, body = 'return f"{greeting}, {name}!"') => `
def ${name}(name: str, greeting: str = "Hello") -> str:
    """Greet someone.

    Args:
        name: Who to greet.
        greeting: The word to greet with.

    Returns:
        str: The greeting.
    """
    ${body}
`;

describe('tool CRUD', () => {
  it('creates a python tool whose schema and name come from the source, and reads, updates and deletes it', async () => {
    const name = unique('greet');
    const created = await client.tools.create({ source_code: pythonTool(name), tags: ['demo'], return_char_limit: 500 });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^tool-[0-9a-f-]{36}$/),
      name,
      tool_type: 'custom',
      source_type: 'python',
      description: 'Greet someone.',
      tags: ['demo'],
      return_char_limit: 500,
      enable_parallel_execution: false,
      metadata_: {},
      json_schema: {
        name,
        description: 'Greet someone.',
        parameters: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'Who to greet.' },
            greeting: { type: 'string', description: 'The word to greet with.' },
          },
          required: ['name'],
        },
      },
    });
    expect(await client.tools.retrieve(created.id)).toEqual(created);

    const renamed = unique('salute');
    const updated = await client.tools.update(created.id, { source_code: pythonTool(renamed), metadata_: { owner: 'tests' } });
    expect(updated).toMatchObject({ id: created.id, name: renamed, json_schema: { name: renamed }, metadata_: { owner: 'tests' }, tags: ['demo'] });

    const deleted = await api(`/tools/${created.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.text()).toBe('null');
    const gone = await api(`/tools/${created.id}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ detail: 'Tool not found' });
  });

  it('refuses a second tool of the same name in the organization with 409', async () => {
    const name = unique('twice');
    await client.tools.create({ source_code: pythonTool(name) });
    const again = await send('POST', '/tools/', { source_code: pythonTool(name) });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ detail: `A tool named '${name}' already exists in this organization` });
  });

  it("hides another organization's tools (404) and lets it use the same name", async () => {
    const name = unique('private');
    const mine = await client.tools.create({ source_code: pythonTool(name) });
    const other = await stack.createTenant();
    const key = other.apiKey.key;
    expect((await api(`/tools/${mine.id}`, { key })).status).toBe(404);
    expect((await send('PATCH', `/tools/${mine.id}`, { tags: ['stolen'] }, key)).status).toBe(404);
    expect((await api(`/tools/${mine.id}`, { method: 'DELETE', key })).status).toBe(404);
    expect((await send('POST', '/tools/', { source_code: pythonTool(name) }, key)).status).toBe(200);
    expect((await client.tools.retrieve(mine.id)).tags).toEqual([]);
  });

  it('upserts by name with PUT: creates, then updates the same tool, and never replaces a built-in tool', async () => {
    const name = unique('upserted');
    const first = await client.tools.upsert({ source_code: pythonTool(name), tags: ['v1'] });
    const second = await client.tools.upsert({ source_code: pythonTool(name, 'return greeting.upper()'), tags: ['v2'] });
    expect(second.id).toBe(first.id);
    expect(second).toMatchObject({ tags: ['v2'], source_code: expect.stringContaining('greeting.upper()') });

    await api('/tools/add-base-tools', { method: 'POST' });
    const builtIn = await send('PUT', '/tools/', { source_code: pythonTool('send_message') });
    expect(builtIn.status).toBe(409);
  });

  it('adds the built-in tools and returns them', async () => {
    const other = await stack.createTenant();
    const response = await api('/tools/add-base-tools', { method: 'POST', key: other.apiKey.key });
    expect(response.status).toBe(200);
    const tools = await response.json();
    expect(tools.map((tool: { name: string }) => tool.name).sort()).toEqual(BASE_TOOLS.map((tool) => tool.name).sort());
    expect(tools.every((tool: { tool_type: string }) => tool.tool_type.startsWith('letta_'))).toBe(true);
  });
});

describe('tool list and count filters', () => {
  it('filters by name, names, ids, search and type, pages, and counts the same way', async () => {
    const tenant = await stack.createTenant();
    const key = tenant.apiKey.key;
    const created = [];
    for (const name of ['alpha_lookup', 'beta_lookup', 'gamma_report']) {
      created.push(await (await send('POST', '/tools/', { source_code: pythonTool(name) }, key)).json());
    }
    const names = async (query: string) => ((await (await api(`/tools/?${query}`, { key })).json()) as Array<{ name: string }>).map((tool) => tool.name).sort();

    expect(await names('name=beta_lookup')).toEqual(['beta_lookup']);
    expect(await names('names=alpha_lookup&names=gamma_report')).toEqual(['alpha_lookup', 'gamma_report']);
    expect(await names(`tool_ids=${created[0].id},${created[2].id}`)).toEqual(['alpha_lookup', 'gamma_report']);
    expect(await names('search=LOOKUP')).toEqual(['alpha_lookup', 'beta_lookup']);
    expect(await names('tool_types=custom')).toEqual(['alpha_lookup', 'beta_lookup', 'gamma_report']);
    expect(await names('exclude_letta_tools=true')).toEqual(['alpha_lookup', 'beta_lookup', 'gamma_report']);
    expect(await names('return_only_letta_tools=true')).toEqual(BASE_TOOLS.map((tool) => tool.name).sort());
    expect(await names('exclude_tool_types=letta_core,letta_memory_core,letta_files_core,letta_sleeptime_core,letta_multi_agent_core,letta_builtin')).toEqual(['alpha_lookup', 'beta_lookup', 'gamma_report']);

    const firstPage = await (await api('/tools/?tool_types=custom&limit=2&order=asc', { key })).json();
    expect(firstPage.map((tool: { name: string }) => tool.name)).toEqual(['alpha_lookup', 'beta_lookup']);
    const secondPage = await (await api(`/tools/?tool_types=custom&limit=2&order=asc&after=${firstPage[1].id}`, { key })).json();
    expect(secondPage.map((tool: { name: string }) => tool.name)).toEqual(['gamma_report']);

    expect(await (await api('/tools/count?search=lookup', { key })).json()).toBe(2);
    expect(await (await api('/tools/count?exclude_letta_tools=true', { key })).json()).toBe(3);
    expect(await (await api('/tools/count', { key })).json()).toBe(3 + BASE_TOOLS.length);

    const invalid = await api('/tools/?tool_types=nonsense', { key });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).detail).toMatch(/^Invalid tool_type: nonsense/);
  });

  it('lists through the client', async () => {
    const name = unique('listed');
    await client.tools.create({ source_code: pythonTool(name) });
    const page = await client.tools.list({ name });
    expect(page.getPaginatedItems().map((tool) => tool.name)).toEqual([name]);
  });
});

describe('tool source rules', () => {
  it('names the parameter that has no type annotation, or no description', async () => {
    const untyped = await send('POST', '/tools/', {
      source_code: 'def lookup(city, days: int):\n    """Look up.\n\n    Args:\n        city: The city.\n        days: Days.\n    """\n    return city',
    });
    expect(untyped.status).toBe(400);
    expect(await untyped.json()).toEqual({ detail: "The parameter 'city' of function 'lookup' has no type annotation" });

    const undocumented = await send('POST', '/tools/', {
      source_code: 'def lookup(city: str, days: int):\n    """Look up.\n\n    Args:\n        city: The city.\n    """\n    return city',
    });
    expect(undocumented.status).toBe(400);
    expect(await undocumented.json()).toEqual({
      detail: "The parameter 'days' of function 'lookup' has no description: document it under Args: in the docstring",
    });

    const broken = await send('POST', '/tools/', { source_code: 'def lookup(:\n    pass' });
    expect(broken.status).toBe(400);
    expect((await broken.json()).detail).toMatch(/^The source is not valid Python: /);
  });

  it('requires json_schema for TypeScript tools, and takes it as given', async () => {
    const source = 'export function shout(text: string): string { return text.toUpperCase(); }';
    const missing = await send('POST', '/tools/', { source_code: source, source_type: 'typescript' });
    expect(missing.status).toBe(400);
    expect((await missing.json()).detail).toBe('TypeScript tools must supply json_schema: their schema is not derived from the source');

    const name = unique('shout');
    const jsonSchema = { name, description: 'Shout.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } };
    const created = await client.tools.create({ source_code: source.replace('shout', name), source_type: 'typescript', json_schema: jsonSchema });
    expect(created).toMatchObject({ name, source_type: 'typescript', json_schema: jsonSchema });
  });

  it('limits names to 48 characters', async () => {
    const tooLong = 'f'.repeat(49);
    const response = await send('POST', '/tools/', { source_code: pythonTool(tooLong) });
    expect(response.status).toBe(400);
    expect((await response.json()).detail).toBe(`Tool name '${tooLong}' is 49 characters long; the limit is 48`);
  });

  it('rejects unknown fields and out-of-range limits with 422', async () => {
    expect((await send('POST', '/tools/', { source_code: pythonTool(unique('x')), name: 'nope' })).status).toBe(422);
    expect((await send('POST', '/tools/', { source_code: pythonTool(unique('x')), return_char_limit: 0 })).status).toBe(422);
  });
});

describe('POST /tools/generate-schema', () => {
  it('derives a schema from a rich signature', async () => {
    const code = `
from typing import List, Literal, Optional

def plan_trip(
    city: str,
    days: int,
    budget: float = 100.0,
    tags: list[str] = [],
    mode: Literal["car", "train"] = "car",
    note: Optional[str] = None,
    stops: "int | None" = None,
    legs: List[dict] = [],
    *,
    strict: bool,
) -> str:
    """Plan a trip.

    Builds an itinerary, day by day.

    Args:
        city (str): The city to visit.
        days: How many days,
            at least one.
        budget: Budget in euros.
        tags: Tags to match.
        mode: Travel mode.
        note: A note.
        stops: Number of stops.
        legs: The legs.
        strict: Be strict.
    """
    return city
`;
    const response = await send('POST', '/tools/generate-schema', { code });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      name: 'plan_trip',
      description: 'Plan a trip.\n\nBuilds an itinerary, day by day.',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'The city to visit.' },
          days: { type: 'integer', description: 'How many days, at least one.' },
          budget: { type: 'number', description: 'Budget in euros.' },
          tags: { type: 'array', items: { type: 'string' }, description: 'Tags to match.' },
          mode: { type: 'string', enum: ['car', 'train'], description: 'Travel mode.' },
          note: { type: 'string', description: 'A note.' },
          stops: { type: 'integer', description: 'Number of stops.' },
          legs: { type: 'array', items: { type: 'object' }, description: 'The legs.' },
          strict: { type: 'boolean', description: 'Be strict.' },
        },
        required: ['city', 'days', 'strict'],
      },
    });
  });

  it('keeps the parameters of a saved tool in the order the function declares them', async () => {
    const source = [
      'def order_pizza(topping: str, size: int, extra_cheese: bool, address: str) -> str:',
      '    """Orders a pizza.',
      '',
      '    Args:',
      '        topping: The topping.',
      '        size: Diameter in cm.',
      '        extra_cheese: More cheese.',
      '        address: Where to deliver.',
      '    """',
      '    return topping',
    ].join('\n');
    const created = await client.tools.create({ source_code: source });
    const declared = ['topping', 'size', 'extra_cheese', 'address'];
    const parameterNames = (schema: unknown) => Object.keys((schema as { parameters: { properties: object } }).parameters.properties);
    expect(parameterNames(created.json_schema)).toEqual(declared);
    expect(parameterNames((await client.tools.retrieve(created.id)).json_schema)).toEqual(declared);
  });
});

describe('POST /tools/run', () => {
  it('runs python source with arguments and captures stdout, saving nothing', async () => {
    const name = unique('adder');
    const response = await send('POST', '/tools/run', {
      source_code: `def ${name}(a: int, b: int):\n    print("adding", a, b)\n    return a + b`,
      args: { a: 2, b: 3 },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      message_type: 'tool_return_message',
      status: 'success',
      tool_return: '5',
      func_return: '5',
      stdout: ['adding 2 3\n'],
      stderr: [],
      is_err: false,
      tool_returns: [{ type: 'tool', status: 'success', tool_return: '5' }],
    });
    expect((await (await api(`/tools/?name=${name}`)).json())).toEqual([]);
  });

  it('returns the exception of a failing tool as an error result', async () => {
    const response = await send('POST', '/tools/run', { source_code: 'def fail(x: int):\n    raise ValueError(f"bad {x}")', args: { x: 7 } });
    const result = await response.json();
    expect(result).toMatchObject({ status: 'error', tool_return: 'Error executing function fail: ValueError: bad 7', is_err: true });
    expect(result.stderr.join('')).toContain('ValueError: bad 7');
  });

  it("stops a tool at the local config's timeout", async () => {
    const tenant = await stack.createTenant();
    const key = tenant.apiKey.key;
    expect((await send('POST', '/sandbox-config/local', { timeout: 1 }, key)).status).toBe(200);
    const started = Date.now();
    const result = await (await send('POST', '/tools/run', { source_code: 'import time\ndef nap():\n    time.sleep(60)', args: {} }, key)).json();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ status: 'error', tool_return: 'Error executing function nap: TimeoutError: the tool did not finish within 1 s and was stopped' });
  });

  it('kills a tool that prints 10 MB, answers with a truncated error, and keeps serving', async () => {
    const started = Date.now();
    const response = await send('POST', '/tools/run', { source_code: 'def flood():\n    print("x" * 10_000_000)\n    return "done"', args: {} });
    expect(response.status).toBe(200);
    const result = await response.json();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.status).toBe('error');
    expect(result.tool_return).toBe('Error executing function flood: OutputLimitExceeded: the tool wrote more than 1048576 bytes of output and was stopped');
    expect(result.stdout[0].length).toBeLessThan(1_100_000);
    expect(result.stdout[0]).toMatch(/\[output truncated: the tool wrote more than 1048576 bytes and was stopped\]$/);
    expect((await api('/health/')).status).toBe(200);
  });

  it("gives python and TypeScript tools the sandbox config's and the request's variables, and none of the server's", async () => {
    const serverEnv = { OPENAI_API_KEY: process.env.OPENAI_API_KEY, DATABASE_URL: process.env.DATABASE_URL };
    Object.assign(process.env, { OPENAI_API_KEY: 'sk-server-only', DATABASE_URL: 'postgres://server-only' });
    const tenant = await stack.createTenant();
    const key = tenant.apiKey.key;
    const config = await (await send('POST', '/sandbox-config/local/default', undefined, key)).json();
    await send('POST', `/sandbox-config/${config.id}/environment-variable`, { key: 'CONFIG_TOKEN', value: 'config-secret' }, key);

    const pythonRun = await (
      await send(
        'POST',
        '/tools/run',
        { source_code: 'import os\ndef read_env():\n    return dict(os.environ)', args: {}, env_vars: { REQUEST_TOKEN: 'request-secret' } },
        key,
      )
    ).json();
    const pythonEnv = JSON.parse(pythonRun.tool_return);
    expect(Object.keys(pythonEnv).sort()).toEqual(['CONFIG_TOKEN', 'HOME', 'LANG', 'PATH', 'REQUEST_TOKEN']);
    expect(pythonEnv).toMatchObject({ CONFIG_TOKEN: 'config-secret', REQUEST_TOKEN: 'request-secret' });

    const typescriptRun = await (
      await send(
        'POST',
        '/tools/run',
        {
          source_code: 'export function read_env(): Record<string, string | undefined> { return { ...process.env }; }',
          source_type: 'typescript',
          args: {},
          env_vars: { REQUEST_TOKEN: 'request-secret' },
        },
        key,
      )
    ).json();
    const typescriptEnv = JSON.parse(typescriptRun.tool_return);
    expect(Object.keys(typescriptEnv).sort()).toEqual(['CONFIG_TOKEN', 'HOME', 'LANG', 'PATH', 'REQUEST_TOKEN']);
    expect(JSON.stringify([pythonEnv, typescriptEnv])).not.toMatch(/server-only/);
    for (const [name, value] of Object.entries(serverEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('fails clearly when the organization runs tools on e2b without credentials', async () => {
    const tenant = await stack.createTenant();
    const key = tenant.apiKey.key;
    const e2b = await (await send('POST', '/sandbox-config/e2b/default', undefined, key)).json();
    const result = await (await send('POST', '/tools/run', { source_code: 'def one():\n    return 1', args: {} }, key)).json();
    expect(result).toMatchObject({
      status: 'error',
      tool_return: `Error executing function one: SandboxConfigurationError: the e2b sandbox has no credentials: add E2B_API_KEY with POST /v1/sandbox-config/${e2b.id}/environment-variable`,
    });
  });
});

describe('POST /tools/generate-tool', () => {
  it("asks the model for a tool and returns it, unsaved, with sample arguments", async () => {
    const name = unique('word_count');
    const source = `def ${name}(text: str) -> int:\n    """Count words.\n\n    Args:\n        text: The text to count.\n    """\n    return len(text.split())\n`;
    model.enqueue({
      type: 'tool_calls',
      calls: [{ name: 'generate_tool', arguments: { raw_source_code: source, sample_args_json: '{"text": "a b c"}', pip_requirements_json: '[]' } }],
    });
    const response = await send('POST', '/tools/generate-tool', { tool_name: name, prompt: 'Count the words in a text', validation_errors: [] });
    expect(response.status).toBe(200);
    const generated = await response.json();
    expect(generated).toMatchObject({
      tool: { name, source_code: source, source_type: 'python', tool_type: 'custom', json_schema: { name, parameters: { required: ['text'] } } },
      sample_args: { text: 'a b c' },
    });
    const request = model.requests.at(-1)!;
    expect(request.tool_choice).toEqual({ type: 'function', function: { name: 'generate_tool' } });
    expect(JSON.stringify(request.messages)).toContain('Count the words in a text');
    expect(await (await api(`/tools/count?name=${name}`)).json()).toBe(0);
  });

  it('answers 400 when the handle names a provider that is not configured', async () => {
    const response = await send('POST', '/tools/generate-tool', { tool_name: 'x', prompt: 'anything', handle: 'anthropic/claude-sonnet-4' });
    expect(response.status).toBe(400);
    expect((await response.json()).detail).toBe("Provider 'anthropic' of handle 'anthropic/claude-sonnet-4' is not configured");
  });
});
