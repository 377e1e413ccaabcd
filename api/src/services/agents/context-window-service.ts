import { plainText, toPromptMessages, type StoredMessage, type ToolDefinition } from '@engram/core';
import { Message, loadMessagesInOrder, type Database } from '@engram/db';
import type { RequestContext } from '../../http/request-context.js';
import { findAgent, toolsByAgent } from './agent-views.js';

export type FunctionDefinition = { type: 'function'; function: ToolDefinition };

/** What fills an agent's context window, part by part; the token counts add up to the current size. */
export type ContextWindowOverview = {
  contextWindowSizeMax: number;
  contextWindowSizeCurrent: number;
  numMessages: number;
  numArchivalMemory: number;
  numRecallMemory: number;
  numTokensSystem: number;
  systemPrompt: string;
  numTokensCoreMemory: number;
  coreMemory: string;
  numTokensExternalMemorySummary: number;
  externalMemorySummary: string;
  numTokensSummaryMemory: number;
  summaryMemory: string | null;
  numTokensFunctionsDefinitions: number;
  functionsDefinitions: FunctionDefinition[];
  numTokensMessages: number;
  /** The in-context messages, system message first. */
  messages: StoredMessage[];
};

/**
 * Why an estimate: exact counts need the model's own tokenizer, which differs per provider and would have
 * to be downloaded. Four characters per token is the usual rule of thumb for English text and JSON.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The `<tag>…</tag>` section of the compiled system prompt, or '' when the prompt has none. */
function section(compiled: string, tag: string): string {
  const start = compiled.indexOf(`<${tag}>`);
  const end = compiled.indexOf(`</${tag}>`, start);
  return start === -1 || end === -1 ? '' : compiled.slice(start, end + tag.length + 3);
}

export type ContextWindowServiceDeps = { db: Database };

export function createContextWindowService(deps: ContextWindowServiceDeps) {
  const { db } = deps;
  return {
    async overview(ctx: RequestContext, agentId: string): Promise<ContextWindowOverview> {
      const agent = await findAgent(db, ctx.organizationId, agentId);
      const [inContext, tools, numRecallMemory] = await Promise.all([
        loadMessagesInOrder(db, ctx.organizationId, agent.messageIds),
        toolsByAgent(db, ctx.organizationId, [agentId]),
        Message.query(db).forOrg(ctx.organizationId).where({ agentId }).resultSize(),
      ]);

      // The compiled system message is split into the template, core memory and the memory metadata.
      const [systemMessage, ...history] = inContext;
      const compiled = systemMessage?.role === 'system' ? plainText(systemMessage.content) : '';
      const coreMemory = section(compiled, 'memory_blocks');
      const externalMemorySummary = section(compiled, 'memory_metadata');
      const systemPrompt = compiled.replace(coreMemory, '').replace(externalMemorySummary, '').trim();

      const summaries = history.filter((message) => message.role === 'summary');
      const summaryMemory = summaries.length > 0 ? summaries.map((message) => plainText(message.content)).join('\n') : null;
      const conversation = history.filter((message) => message.role !== 'summary');
      // Messages are counted as the provider-neutral prompt the model is sent, JSON keys included.
      const numTokensMessages = toPromptMessages(conversation).reduce((sum, message) => sum + estimateTokens(JSON.stringify(message)), 0);

      const functionsDefinitions: FunctionDefinition[] = (tools.get(agentId) ?? []).map((tool) => ({
        type: 'function',
        function: {
          name: tool.name,
          description: tool.jsonSchema.description ?? tool.description ?? '',
          parameters: tool.jsonSchema.parameters,
        },
      }));

      const parts = {
        numTokensSystem: estimateTokens(systemPrompt),
        numTokensCoreMemory: estimateTokens(coreMemory),
        numTokensExternalMemorySummary: estimateTokens(externalMemorySummary),
        numTokensSummaryMemory: summaryMemory === null ? 0 : estimateTokens(summaryMemory),
        numTokensFunctionsDefinitions: functionsDefinitions.length === 0 ? 0 : estimateTokens(JSON.stringify(functionsDefinitions)),
        numTokensMessages,
      };
      return {
        ...parts,
        contextWindowSizeMax: agent.llmConfig.context_window,
        contextWindowSizeCurrent: Object.values(parts).reduce((sum, tokens) => sum + tokens, 0),
        numMessages: inContext.length,
        // Archival memory (passages) has no storage yet, so it holds nothing.
        numArchivalMemory: 0,
        numRecallMemory,
        systemPrompt,
        coreMemory,
        externalMemorySummary,
        summaryMemory,
        functionsDefinitions,
        messages: inContext,
      };
    },
  };
}

export type ContextWindowService = ReturnType<typeof createContextWindowService>;
