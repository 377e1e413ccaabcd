import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import {
  Agent,
  AgentTool,
  Organization,
  SandboxConfig,
  SandboxEnvironmentVariable,
  Tool,
  createDatabase,
  createSecretBox,
  newId,
  type Database,
  type ToolJsonSchema,
} from '@engram/db';
import { createExecuteTool, type ExecuteToolInput } from './execute-tool.js';
import { defaultVenvRoot } from './tool-runner.js';
import { loopbackEgress } from '@engram/testing/egress';
import { sandboxedStdio } from '@engram/testing/mcp-stdio';

let db: Database;
const secrets = createSecretBox(randomBytes(32).toString('base64'));
let executeTool: ReturnType<typeof createExecuteTool>;

beforeAll(() => {
  db = createDatabase({ url: inject('databaseUrl'), pool: { max: 2 } });
  const egress = loopbackEgress();
  executeTool = createExecuteTool({ db, secrets, egress, mcpStdio: sandboxedStdio(egress) });
});

afterAll(async () => {
  await db?.destroy();
});

const schemaFor = (name: string, properties: Record<string, unknown> = {}): ToolJsonSchema => ({
  name,
  description: `the ${name} tool`,
  parameters: { type: 'object', properties, required: Object.keys(properties) },
});

/** A fresh organization with one agent, so each test owns its sandbox configs. */
async function newAgent(secretValues: Record<string, string> = {}) {
  const organizationId = newId('organization');
  await Organization.query(db).insert({ id: organizationId, name: `execute-tool ${organizationId}` });
  const agent = await Agent.query(db)
    .insert({
      id: newId('agent'),
      organizationId,
      name: 'tool user',
      agentType: 'letta_v1_agent',
      system: 'You use tools.',
      llmConfig: { model: 'gpt-4o-mini', model_endpoint_type: 'openai', context_window: 128_000 },
      toolExecEnvironmentVariables: Object.entries(secretValues).map(([key, value]) => ({ key, value: secrets.encrypt(value), description: null })),
    })
    .returning('*');
  return { organizationId, agentId: agent.id };
}

async function attachTool(
  owner: { organizationId: string; agentId: string },
  fields: { name: string; sourceCode: string; sourceType?: string; returnCharLimit?: number; metadata?: Record<string, unknown> },
) {
  const tool = await Tool.query(db)
    .insert({
      id: newId('tool'),
      organizationId: owner.organizationId,
      name: fields.name,
      toolType: 'custom',
      sourceType: fields.sourceType ?? 'python',
      sourceCode: fields.sourceCode,
      jsonSchema: schemaFor(fields.name),
      returnCharLimit: fields.returnCharLimit ?? 50_000,
      metadata: fields.metadata ?? {},
    })
    .returning('*');
  await AgentTool.query(db).insert({ agentId: owner.agentId, toolId: tool.id, organizationId: owner.organizationId });
  return tool;
}

async function sandboxConfig(organizationId: string, type: 'local' | 'e2b', config: Record<string, unknown>, variables: Record<string, string> = {}) {
  const row = await SandboxConfig.query(db).insert({ id: `sandbox-${randomUUID()}`, organizationId, type, config }).returning('*');
  for (const [key, value] of Object.entries(variables)) {
    await SandboxEnvironmentVariable.query(db).insert({
      id: `sandbox-env-${randomUUID()}`,
      organizationId,
      sandboxConfigId: row.id,
      key,
      valueEnc: secrets.encrypt(value),
    });
  }
  return row;
}

const call = (owner: { organizationId: string; agentId: string }, toolName: string, args: Record<string, unknown> = {}): ExecuteToolInput => ({
  ...owner,
  runId: newId('run'),
  toolCallId: `call_${randomUUID()}`,
  toolName,
  arguments: args,
});

describe('executeTool', () => {
  it("runs the agent's tool with the sandbox config's variables and the agent's secrets, and nothing of the server's", async () => {
    const serverKey = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-server-only';
    const owner = await newAgent({ AGENT_TOKEN: 'agent-secret', SHARED: 'from-agent' });
    await sandboxConfig(owner.organizationId, 'local', { timeout: 30 }, { CONFIG_TOKEN: 'config-secret', SHARED: 'from-config' });
    const tool = await attachTool(owner, {
      name: 'read_env',
      sourceCode: 'import os\ndef read_env(prefix: str):\n    print("reading")\n    return {key: value for key, value in os.environ.items() if key != "PATH"}',
    });

    const result = await executeTool(call(owner, 'read_env', { prefix: 'x', request_heartbeat: true }));

    expect(result.status).toBe('success');
    expect(result.stdout).toEqual(['reading\n']);
    const env = JSON.parse(result.funcResponse) as Record<string, string>;
    expect(env).toEqual({
      AGENT_TOKEN: 'agent-secret',
      CONFIG_TOKEN: 'config-secret',
      // The agent's secrets override the sandbox config's variables.
      SHARED: 'from-agent',
      LETTA_AGENT_ID: owner.agentId,
      LETTA_TOOL_ID: tool.id,
      LANG: 'C.UTF-8',
      HOME: expect.stringContaining('engram-tool-'),
    });
    expect(JSON.stringify(env)).not.toContain('sk-server-only');
    process.env.OPENAI_API_KEY = serverKey;
  });

  it('runs TypeScript tools with the same environment rules', async () => {
    const owner = await newAgent({ AGENT_TOKEN: 'agent-secret' });
    await sandboxConfig(owner.organizationId, 'local', {}, { CONFIG_TOKEN: 'config-secret' });
    await attachTool(owner, {
      name: 'read_env_ts',
      sourceType: 'typescript',
      sourceCode: 'export function read_env_ts(): string[] { return Object.keys(process.env).sort(); }',
    });
    const result = await executeTool(call(owner, 'read_env_ts'));
    expect(JSON.parse(result.funcResponse)).toEqual(['AGENT_TOKEN', 'CONFIG_TOKEN', 'HOME', 'LANG', 'LETTA_AGENT_ID', 'LETTA_TOOL_ID', 'PATH']);
  });

  it("cuts the response at the tool's return_char_limit, saying so", async () => {
    const owner = await newAgent();
    await attachTool(owner, { name: 'long_answer', sourceCode: 'def long_answer():\n    return "z" * 500', returnCharLimit: 100 });
    const result = await executeTool(call(owner, 'long_answer'));
    expect(result).toMatchObject({ status: 'success' });
    expect(result.funcResponse).toBe(`${'z'.repeat(100)}... [NOTE: function output was truncated since it exceeded the character limit: 500 > 100]`);
  });

  it("returns the tool's own failure as an error result, without throwing", async () => {
    const owner = await newAgent();
    await attachTool(owner, { name: 'divide', sourceCode: 'def divide():\n    return 1 / 0' });
    const result = await executeTool(call(owner, 'divide'));
    expect(result.status).toBe('error');
    expect(result.funcResponse).toBe('Error executing function divide: ZeroDivisionError: division by zero');
    expect(result.stderr.join('')).toContain('ZeroDivisionError');
  });

  it("uses the local config's timeout", async () => {
    const owner = await newAgent();
    await sandboxConfig(owner.organizationId, 'local', { timeout: 1 });
    await attachTool(owner, { name: 'sleepy', sourceCode: 'import time\ndef sleepy():\n    time.sleep(30)' });
    const started = Date.now();
    const result = await executeTool(call(owner, 'sleepy'));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.funcResponse).toBe('Error executing function sleepy: TimeoutError: the tool did not finish within 1 s and was stopped');
  });

  it('fails clearly for an e2b sandbox without credentials, and for a tool asking for modal without a config', async () => {
    const owner = await newAgent();
    const e2b = await sandboxConfig(owner.organizationId, 'e2b', { timeout: 300 });
    await attachTool(owner, { name: 'remote', sourceCode: 'def remote():\n    return 1' });
    const result = await executeTool(call(owner, 'remote'));
    expect(result).toEqual({
      status: 'error',
      funcResponse: `Error executing function remote: SandboxConfigurationError: the e2b sandbox has no credentials: add E2B_API_KEY with POST /v1/sandbox-config/${e2b.id}/environment-variable`,
      stdout: [],
      stderr: [],
    });

    await attachTool(owner, { name: 'on_modal', sourceCode: 'def on_modal():\n    return 1', metadata: { sandbox: 'modal' } });
    expect((await executeTool(call(owner, 'on_modal'))).funcResponse).toContain('the organization has no modal sandbox config');
  });

  it("only runs the agent's own tools, and only custom ones", async () => {
    const owner = await newAgent();
    const other = await newAgent();
    await attachTool(other, { name: 'elsewhere', sourceCode: 'def elsewhere():\n    return 1' });
    expect(await executeTool(call(owner, 'elsewhere'))).toMatchObject({
      status: 'error',
      funcResponse: "Error: tool 'elsewhere' is not one of this agent's tools",
    });
  });

  it('reports a pip requirement that cannot be installed, quickly, as an error result', async () => {
    const owner = await newAgent();
    const tool = await attachTool(owner, { name: 'needs_package', sourceCode: 'def needs_package():\n    return 1' });
    await tool.$query(db).patch({ pipRequirements: [{ name: 'engram-package-that-does-not-exist', version: '9.9.9' }] });
    const started = Date.now();
    const result = await executeTool(call(owner, 'needs_package'));
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(result.status).toBe('error');
    expect(result.funcResponse).toContain(
      'SandboxSetupError: pip could not install engram-package-that-does-not-exist==9.9.9 (is a package index reachable from this server?)',
    );
    rmSync(path.join(defaultVenvRoot(), owner.organizationId), { recursive: true, force: true });
  });
});
