import type { TokenUsage } from '../model.js';

/** Share of the context window a step's prompt and answer may fill before the context is compacted. */
export const COMPACTION_TRIGGER = 0.9;

/** Whether a step that used this much of its context window leaves the context due for compaction. */
export function compactionDue(usage: Pick<TokenUsage, 'prompt_tokens' | 'completion_tokens'>, contextWindow: number): boolean {
  return usage.prompt_tokens + usage.completion_tokens > COMPACTION_TRIGGER * contextWindow;
}
