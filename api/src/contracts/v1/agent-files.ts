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
        messages: z.array(z.looseObject({ role: z.string() })),
      }),
    ),
    blocks: z.array(FileEntry.extend({ label: z.string(), value: z.string() })),
    tools: z.array(FileEntry.extend({ name: z.string() })),
    // Not written by this server yet (always empty); other servers' files may carry them.
    groups: z.array(z.unknown()),
    files: z.array(z.unknown()),
    sources: z.array(z.unknown()),
    mcp_servers: z.array(z.unknown()),
    metadata: Metadata,
    created_at: z.string().optional(),
  })
  .meta({ id: 'AgentFile' });

/** `POST /agents/import`: the ids of the agents created, in the file's order. */
export const ImportedAgentsResponse = z.object({ agent_ids: z.array(z.string()) });
