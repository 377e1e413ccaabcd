import { randomUUID } from 'node:crypto';
import { plainText, toPromptMessages, type ModelSettings, type RunRequest, type StoredMessage } from '@engram/core';
import { Agent, contextMessageIds, loadMessagesInOrder, Message, recompileSystemMessage, Run, setContextMessageIds, type Database, type SecretBox } from '@engram/db';
import { createModelClient, type BaseProviderConfig } from '../llm/index.js';
import { providerFor } from '../llm/provider-for.js';
import type { EgressPolicy } from '../egress/index.js';

export type CompactionSettings = {
  /** Share of the context window the kept messages may fill after a compaction. */
  keepFraction: number;
  /** Longest summary kept, in characters. */
  clipChars: number;
};

export const DEFAULT_COMPACTION: CompactionSettings = { keepFraction: 0.7, clipChars: 50_000 };

/** A step whose prompt passed this share of the window triggers a compaction before the next step. */
export const COMPACTION_TRIGGER = 0.9;

export type CompactInput = {
  organizationId: string;
  agentId: string;
  /** The conversation whose window is compacted; absent (or null) for the agent's default conversation. */
  conversationId?: string | null;
  /** The prompt size the provider reported for the last step; it calibrates the character-based estimate. */
  observedPromptTokens?: number;
  /** Compact even when the context fits: at least the oldest turn is summarized. */
  force?: boolean;
};

export type CompactResult = {
  compacted: boolean;
  summary: string | null;
  numMessagesBefore: number;
  numMessagesAfter: number;
};

type Deps = { db: Database; baseProviders: BaseProviderConfig[]; secrets: SecretBox; egress: Pick<EgressPolicy, 'fetchFor'> };

// No tokenizer download is possible here; four characters per token is the usual estimate.
const estimateTokens = (message: StoredMessage) =>
  Math.ceil((plainText(message.content).length + JSON.stringify(message.toolCalls ?? message.toolReturns ?? '').length) / 4);

const SUMMARY_INSTRUCTIONS =
  'You maintain the long-term memory of a conversation between an AI agent and its user. Summarize the ' +
  'conversation below so the agent can continue it without the original messages: keep names, facts, decisions, ' +
  'open questions, tool results that matter, and commitments. Merge in the previous summary if there is one. ' +
  'Write plain prose, concise, no preamble.';

function transcriptOf(messages: StoredMessage[]): string {
  return toPromptMessages(messages, { dropDanglingToolCalls: true })
    .map((message) => {
      if (message.role === 'tool') return `tool result: ${message.content}`;
      if (message.role === 'assistant') {
        const calls = (message.toolCalls ?? []).map((call) => `called ${call.name}(${call.arguments})`).join('; ');
        return `assistant: ${[message.content ?? '', calls].filter(Boolean).join(' | ')}`;
      }
      const content = typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('');
      return `${message.role}: ${content}`;
    })
    .join('\n');
}

/**
 * The model configuration a window is measured and summarized with: for a conversation, the one its latest run
 * called (its overrides of model, settings and context window, as resolved when that run was sent), else the agent's.
 */
async function llmConfigOfWindow(db: Database, agent: Agent, conversationId: string | null): Promise<ModelSettings> {
  if (conversationId) {
    const latest = await Run.query(db).forOrg(agent.organizationId).where({ agentId: agent.id, conversationId }).orderBy('created_at', 'desc').first();
    const overridden = (latest?.request as unknown as RunRequest | undefined)?.llmConfig;
    if (overridden) return overridden;
  }
  return agent.llmConfig as ModelSettings;
}

/**
 * Sliding-window compaction: the oldest messages after the system message are summarized by the
 * agent's model and replaced by one summary message, until the rest fits in `keepFraction` of the
 * window. The cut always lands right before a user message, so no tool result loses its call.
 * The agent's context is re-checked at commit: if a run changed it meanwhile, nothing is written.
 */
export function createCompactContext(deps: Deps, settings: CompactionSettings = DEFAULT_COMPACTION) {
  return async function compactContext(input: CompactInput): Promise<CompactResult> {
    const agent = await Agent.query(deps.db).forOrg(input.organizationId).findById(input.agentId);
    if (!agent) throw new Error(`agent ${input.agentId} does not exist`);
    const owner = { organizationId: input.organizationId, agentId: input.agentId, conversationId: input.conversationId ?? null };
    const llmConfig = await llmConfigOfWindow(deps.db, agent, owner.conversationId);
    const context = await loadMessagesInOrder(deps.db, input.organizationId, await contextMessageIds(deps.db, owner));
    const [system, ...rest] = context;
    const before = context.length;
    const previousSummary = rest[0]?.role === 'summary' ? rest[0] : null;
    const estimatedPrompt = context.reduce((sum, message) => sum + estimateTokens(message), 0);
    const scale = input.observedPromptTokens && estimatedPrompt > 0 ? Math.max(1, input.observedPromptTokens / estimatedPrompt) : 1;
    const budget = (llmConfig.context_window * settings.keepFraction) / scale - estimateTokens(system ?? rest[0]!);
    let keptTokens = rest.reduce((sum, message) => sum + estimateTokens(message), 0);
    let cut = previousSummary ? 1 : 0;
    for (let index = cut; index < rest.length && keptTokens > budget; index++) {
      keptTokens -= estimateTokens(rest[index] as StoredMessage);
      cut = index + 1;
    }
    const firstTurn = previousSummary ? 1 : 0;
    if (input.force && cut === firstTurn) cut = firstTurn + 1;
    while (cut < rest.length && rest[cut]?.role !== 'user') cut++;
    const evicted = rest.slice(0, cut);
    if (!system || evicted.length <= firstTurn || cut >= rest.length) {
      return { compacted: false, summary: previousSummary ? plainText(previousSummary.content) : null, numMessagesBefore: before, numMessagesAfter: before };
    }

    const client = createModelClient(await providerFor(deps, input.organizationId, llmConfig));
    const turn = await client.complete(
      {
        settings: { ...llmConfig, max_tokens: null },
        messages: [
          { role: 'system', content: SUMMARY_INSTRUCTIONS },
          { role: 'user', content: transcriptOf(evicted) },
        ],
        tools: [],
        toolChoice: 'auto',
        parallelToolCalls: false,
        stream: false,
      },
      {},
    );
    const summary = (turn.text ?? '').slice(0, settings.clipChars);

    return deps.db.transaction(async (trx) => {
      const locked = await contextMessageIds(trx, owner, { lock: true });
      const evictedIds = evicted.map((message) => message.id);
      const unchanged = locked[0] === system.id && evictedIds.every((id, index) => locked[index + 1] === id);
      if (!unchanged) return { compacted: false, summary: null, numMessagesBefore: before, numMessagesAfter: before };
      const summaryMessage = await Message.query(trx).insert({
        id: `message-${randomUUID()}`,
        organizationId: input.organizationId,
        agentId: input.agentId,
        conversationId: owner.conversationId,
        role: 'summary',
        content: [{ type: 'text', text: `Summary of the earlier conversation (${evicted.length} messages):\n${summary}` }],
        createdAt: new Date(),
      } as unknown as Message);
      const remaining = locked.slice(1 + evictedIds.length);
      await setContextMessageIds(trx, owner, [system.id, summaryMessage.id, ...remaining]);
      await recompileSystemMessage(trx, input.organizationId, input.agentId, new Date());
      return { compacted: true, summary, numMessagesBefore: before, numMessagesAfter: remaining.length + 2 };
    });
  };
}
