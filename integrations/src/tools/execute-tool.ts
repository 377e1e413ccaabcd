import { Agent, Tool, type Database, type SecretBox } from '@engram/db';
import { createArchivalTools, isArchivalTool } from '../archival/archival-tools.js';
import { createEmbedder } from '../archival/embedder.js';
import { createPassageStore } from '../archival/passage-store.js';
import { createSemanticSearchFiles, SEMANTIC_SEARCH_FILES } from './semantic-search-files.js';
import type { BaseProviderConfig } from '../llm/index.js';
import { createVenvManager, type VenvManager } from '../sandbox/venv.js';
import type { SandboxIsolation } from '../sandbox/isolation.js';
import { createToolRunner, defaultVenvRoot, openSecret, truncateToolReturn, UnreadableSecretError } from './tool-runner.js';
import { createMcpConnectionPool, type McpConnectionPool } from '../mcp/connection-pool.js';
import { createMcpToolExecutor } from '../mcp/execute-mcp-tool.js';
import { MCP_TOOL_TYPE } from '../mcp/registered-tool.js';
import type { EgressPolicy } from '../egress/index.js';
import type { McpStdioPolicy } from '../mcp/stdio-sandbox.js';

export type ExecuteToolInput = {
  organizationId: string;
  agentId: string;
  /** The run whose turn called the tool; absent when a tool is run directly through the API. */
  runId?: string;
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
};

export type ExecuteToolResult = { status: 'success' | 'error'; funcResponse: string; stdout: string[]; stderr: string[] };

export type ExecuteToolDeps = {
  db: Database;
  secrets: SecretBox;
  /** Embedding providers for the archival tools, besides the organization's own. */
  baseProviders?: BaseProviderConfig[];
  /** Where per-sandbox-config virtualenvs are kept; a directory under the OS temp dir by default. */
  venvRoot?: string;
  /** The process's virtualenv manager, when it has one already (two managers could build the same venv at once). */
  venvs?: VenvManager;
  /** How the process isolates local tools, found at its start (`detectSandboxIsolation`); probed on first use when absent. */
  sandboxIsolation?: SandboxIsolation;
  /** The process's MCP connections; a pool of this executor's own unless the composition root shares one. */
  mcpConnections?: McpConnectionPool;
  /** What MCP servers, organizations' embedding providers and networked sandboxes may reach. */
  egress: EgressPolicy;
  /** Which organizations may run stdio MCP servers (ENGRAM_MCP_STDIO), and the sandbox they run in. */
  mcpStdio: McpStdioPolicy;
};

/**
 * Whether this activity runs the tool: custom (sandbox) and MCP tools, and the built-ins that call an
 * embedding provider. The other built-ins change memory or files inside the step's own transaction.
 */
export function runsInToolActivity(tool: { toolType: string; name: string }): boolean {
  return (
    tool.toolType === 'custom' ||
    tool.toolType === MCP_TOOL_TYPE ||
    (tool.toolType === 'letta_core' && isArchivalTool(tool.name)) ||
    (tool.toolType === 'letta_files_core' && tool.name === SEMANTIC_SEARCH_FILES)
  );
}

/** Added by the agent loop to memgpt-style tool schemas; the tool itself never declares it. */
const HEARTBEAT_ARGUMENT = 'request_heartbeat';

const failure = (funcResponse: string): ExecuteToolResult => ({ status: 'error', funcResponse, stdout: [], stderr: [] });

/**
 * The activity that runs one custom tool call of an agent in its sandbox. A tool that fails — raises,
 * times out, floods its output, is missing or misconfigured — is a result with status `error` for the
 * model to read, never a thrown error: running a tool again is not safe, so only faults of the platform
 * itself (the database unreachable, say) throw.
 */
export function createExecuteTool(deps: ExecuteToolDeps) {
  const { db, secrets } = deps;
  const runner = createToolRunner({
    db,
    secrets,
    venvs: deps.venvs ?? createVenvManager({ root: deps.venvRoot ?? defaultVenvRoot() }),
    sandboxIsolation: deps.sandboxIsolation,
    egress: deps.egress,
  });
  const embedder = createEmbedder({ db, secrets, baseProviders: deps.baseProviders ?? [], egress: deps.egress });
  const passages = createPassageStore({ db, embedder });
  const archival = createArchivalTools({ db, passages });
  const semanticSearchFiles = createSemanticSearchFiles({ db, passages });
  const executeMcpTool = createMcpToolExecutor({ db, secrets, connections: deps.mcpConnections ?? createMcpConnectionPool(), egress: deps.egress, stdio: deps.mcpStdio });

  return async function executeTool(input: ExecuteToolInput): Promise<ExecuteToolResult> {
    const { organizationId, agentId, toolName } = input;
    const agent = await Agent.query(db).forOrg(organizationId).findById(agentId);
    if (!agent) return failure(`Error executing function ${toolName}: agent ${agentId} no longer exists`);
    const tool = await Tool.query(db)
      .forOrg(organizationId)
      .join('agent_tools', 'agent_tools.tool_id', 'tools.id')
      .where({ 'agent_tools.agent_id': agentId, 'tools.name': toolName })
      .select('tools.*')
      .first();
    if (!tool) return failure(`Error: tool '${toolName}' is not one of this agent's tools`);
    // Built-in, but not run inline by the agent loop: embedding calls a provider.
    if (tool.toolType === 'letta_core' && isArchivalTool(tool.name)) {
      const outcome = await archival.execute({ organizationId, agentId, toolCallId: input.toolCallId, toolName, arguments: input.arguments });
      return { ...outcome, stdout: [], stderr: [] };
    }
    if (tool.toolType === 'letta_files_core' && tool.name === SEMANTIC_SEARCH_FILES) {
      const outcome = await semanticSearchFiles({ organizationId, agentId, arguments: input.arguments });
      return { ...outcome, stdout: [], stderr: [] };
    }
    const declaresHeartbeat = Object.hasOwn(tool.jsonSchema.parameters?.properties ?? {}, HEARTBEAT_ARGUMENT);
    const args = Object.fromEntries(Object.entries(input.arguments).filter(([name]) => declaresHeartbeat || name !== HEARTBEAT_ARGUMENT));
    if (tool.toolType === MCP_TOOL_TYPE) {
      const outcome = await executeMcpTool(organizationId, tool, args);
      return { status: outcome.status, funcResponse: truncateToolReturn(outcome.funcReturn, tool.returnCharLimit), stdout: [], stderr: [] };
    }
    if (tool.toolType !== 'custom') return failure(`Error: '${toolName}' is a ${tool.toolType} tool; it is not run in a sandbox`);
    if (!tool.sourceCode) return failure(`Error executing function ${toolName}: the tool has no source code`);

    let agentVariables: Record<string, string>;
    try {
      // Agent secrets are sealed by the agents service; a value that is not sealed is used as it is.
      agentVariables = Object.fromEntries(
        agent.toolExecEnvironmentVariables.map(({ key, value }) => [key, value.startsWith('v1:') ? openSecret(secrets, value, `Agent secret ${key}`) : value]),
      );
    } catch (error) {
      if (!(error instanceof UnreadableSecretError)) throw error;
      return failure(truncateToolReturn(`Error executing function ${toolName}: ${error.message}`, tool.returnCharLimit));
    }

    const outcome = await runner.run({
      organizationId,
      language: tool.sourceType,
      sourceCode: tool.sourceCode,
      functionName: tool.jsonSchema.name ?? tool.name,
      args,
      env: {
        ...agentVariables,
        LETTA_AGENT_ID: agentId,
        LETTA_TOOL_ID: tool.id,
        ...(agent.projectId ? { LETTA_PROJECT_ID: agent.projectId } : {}),
      },
      pipRequirements: tool.pipRequirements,
      npmRequirements: tool.npmRequirements,
      requestedSandbox: tool.metadata?.sandbox,
      returnCharLimit: tool.returnCharLimit,
    });
    return { status: outcome.status, funcResponse: outcome.funcReturn, stdout: outcome.stdout, stderr: outcome.stderr };
  };
}
