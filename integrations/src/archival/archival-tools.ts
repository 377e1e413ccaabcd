import { createHash } from 'node:crypto';
import { Agent, recompileSystemMessage, type Database } from '@engram/db';
import { ModelCallError } from '../llm/index.js';
import { archiveForInsert, archivesOfAgent } from './agent-archives.js';
import { archivalTextProblem, type PassageStore } from './passage-store.js';
import { isoInTimezone, parseSearchBound } from './zoned-time.js';

export const ARCHIVAL_TOOL_NAMES = ['archival_memory_insert', 'archival_memory_search'] as const;

export function isArchivalTool(name: string): boolean {
  return (ARCHIVAL_TOOL_NAMES as readonly string[]).includes(name);
}

export type ArchivalToolCall = {
  organizationId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  signal?: AbortSignal;
};

export type ArchivalToolResult = { status: 'success' | 'error'; funcResponse: string };

const DEFAULT_TOP_K = 5;
const MAX_TOP_K = 100;

class ArgumentError extends Error {}

function text(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  if (typeof value !== 'string' || value.trim() === '') throw new ArgumentError(`'${key}' must be a non-empty string`);
  return value;
}

function tags(args: Record<string, unknown>): string[] | null {
  const value = args.tags;
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || !value.every((tag) => typeof tag === 'string')) throw new ArgumentError("'tags' must be a list of strings");
  return value;
}

/**
 * A uuid4-shaped id derived from the tool call, so an insert whose activity is retried writes the same
 * passage id and the second write is a no-op instead of a duplicate memory.
 */
function passageIdFor(agentId: string, toolCallId: string): string {
  const hex = createHash('sha256').update(`${agentId}\n${toolCallId}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `passage-${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export type ArchivalToolDeps = { db: Database; passages: PassageStore };

/**
 * The two archival base tools. They run in the tool activity rather than inline in the step's
 * transaction because embedding is a call to a provider. A bad argument or a failing embedding provider
 * is an error result for the model; only faults of the platform itself throw.
 */
export function createArchivalTools(deps: ArchivalToolDeps) {
  const { db, passages } = deps;

  async function insert(call: ArchivalToolCall, agent: Agent): Promise<ArchivalToolResult> {
    const content = text(call.arguments, 'content');
    const problem = archivalTextProblem(content);
    if (problem) throw new ArgumentError(problem);
    const archive = await db.transaction((trx) => archiveForInsert(trx, agent));
    const prepared = await passages.prepare({
      organizationId: call.organizationId,
      archive,
      passages: [{ id: passageIdFor(agent.id, call.toolCallId), text: content, tags: tags(call.arguments) }],
      signal: call.signal,
    });
    await db.transaction(async (trx) => {
      await passages.write(trx, prepared);
      // The memory metadata in the system prompt counts archival passages and lists their tags.
      await recompileSystemMessage(trx, call.organizationId, agent.id, new Date());
    });
    // What the reference server's tool returns (Python's None).
    return { status: 'success', funcResponse: 'None' };
  }

  async function search(call: ArchivalToolCall, agent: Agent): Promise<ArchivalToolResult> {
    const args = call.arguments;
    const query = text(args, 'query');
    const mode = args.tag_match_mode ?? 'any';
    if (mode !== 'any' && mode !== 'all') throw new ArgumentError("'tag_match_mode' must be 'any' or 'all'");
    const topK = args.top_k ?? DEFAULT_TOP_K;
    if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 1) throw new ArgumentError("'top_k' must be a positive integer");
    const bound = (key: string, side: 'start' | 'end') => {
      const value = args[key];
      if (value === undefined || value === null || value === '') return null;
      const parsed = typeof value === 'string' ? parseSearchBound(value, agent.timezone, side) : null;
      if (!parsed) throw new ArgumentError(`'${key}' must be an ISO 8601 date ("2025-03-01") or date-time`);
      return parsed;
    };
    const ranked = await passages.search({
      organizationId: call.organizationId,
      archives: await archivesOfAgent(db, call.organizationId, agent.id),
      query,
      mode: 'hybrid',
      limit: Math.min(topK, MAX_TOP_K),
      tags: tags(args),
      tagMatchMode: mode,
      start: bound('start_datetime', 'start'),
      end: bound('end_datetime', 'end'),
      signal: call.signal,
    });
    const results = ranked.map((item) => ({
      id: item.passage.id,
      timestamp: isoInTimezone(item.passage.createdAt, agent.timezone),
      content: item.passage.text,
      tags: item.passage.tags,
      relevance: { rrf_score: item.rrfScore, fts_rank: item.ftsRank, vector_rank: item.vectorRank },
    }));
    return { status: 'success', funcResponse: JSON.stringify(results) };
  }

  return {
    async execute(call: ArchivalToolCall): Promise<ArchivalToolResult> {
      const agent = await Agent.query(db).forOrg(call.organizationId).findById(call.agentId);
      if (!agent) return { status: 'error', funcResponse: `Error executing function ${call.toolName}: agent ${call.agentId} no longer exists` };
      try {
        return call.toolName === 'archival_memory_insert' ? await insert(call, agent) : await search(call, agent);
      } catch (error) {
        if (error instanceof ArgumentError || error instanceof ModelCallError) {
          return { status: 'error', funcResponse: `Error executing function ${call.toolName}: ${error.message}` };
        }
        throw error;
      }
    },
  };
}

export type ArchivalTools = ReturnType<typeof createArchivalTools>;
