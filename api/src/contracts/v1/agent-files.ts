import { z } from 'zod';
import { Metadata } from './agent-config.js';
import { AgentType } from './agents.js';

/** An entry of an agent file: ids are local to the file (`agent-0`, `block-1`, …), not database ids. */
const FileEntry = z.looseObject({ id: z.string() });

/**
 * An agent file (`.af`) as `GET /agents/{id}/export` writes it: the agents with their history, and the blocks
 * and tools they refer to by file-local id. Its entries follow the agent file format, which this schema only
 * outlines (the import parser in services/agent-files is its full definition).
 */
export const AgentFileResponse = z
  .looseObject({
    agents: z.array(
      FileEntry.extend({
        name: z.string(),
        agent_type: AgentType,
        block_ids: z.array(z.string()),
        tool_ids: z.array(z.string()),
        messages: z.array(z.looseObject({ id: z.string(), role: z.string() })),
        in_context_message_ids: z.array(z.string()),
        tool_exec_environment_variables: z.record(z.string(), z.string()),
      }),
    ),
    blocks: z.array(FileEntry.extend({ label: z.string(), value: z.string() })),
    tools: z.array(FileEntry.extend({ name: z.string() })),
    // The agent's folders with their files' text, and the MCP servers of its tools (without credentials).
    sources: z.array(FileEntry.extend({ name: z.string() })),
    files: z.array(FileEntry.extend({ source_id: z.string(), file_name: z.string() })),
    mcp_servers: z.array(FileEntry.extend({ server_name: z.string() })),
    // Read on import; a single agent's export writes none (its group's other agents are not in it).
    groups: z.array(z.unknown()),
    /** Engram's addition: the agent's identities, named by `identity_ids`; Letta's importer ignores it. */
    identities: z.array(FileEntry.extend({ identifier_key: z.string(), name: z.string() })),
    metadata: Metadata,
    created_at: z.string().optional(),
  })
  .meta({ id: 'AgentFile' });

/**
 * `POST /agents/import`: the ids of the agents created, in the file's order, and what did not come over as it
 * was (Engram's addition): a model this server lacks, a tool it cannot run, a secret to give, each with its path
 * in the file and, when it concerns one agent, that agent's id.
 */
export const ImportedAgentsResponse = z.object({
  agent_ids: z.array(z.string()),
  warnings: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), agent_id: z.string().optional() })),
});
