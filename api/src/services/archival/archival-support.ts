import { ArchiveAgent, recompileSystemMessage, type Archive, type Database, type Passage } from '@engram/db';
import { archivalTextProblem, type PassageStore, parseSearchBound } from '@engram/integrations/archival';
import type { Knex } from 'knex';
import { UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { withProviderCalls } from '../providers/model-call-failure.js';

/** A passage as the API receives it (`POST /agents/{id}/archival-memory`, `POST /archives/{id}/passages`). */
export type ArchivalPassageInput = {
  text: string;
  tags?: string[] | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  /** ISO 8601; the passage's creation time, for importing memories that are older than today. */
  created_at?: string | null | undefined;
};

/** The system prompts of an archive's agents show its passage count and tags, so they are rebuilt when it changes. */
export async function recompileArchiveAgents(trx: Knex, organizationId: string, archiveId: string): Promise<void> {
  const users = await ArchiveAgent.query(trx).forOrg(organizationId).where({ archiveId });
  const now = new Date();
  for (const { agentId } of users) await recompileSystemMessage(trx, organizationId, agentId, now);
}

/** Embeds (outside any transaction: it calls the provider), then stores the passages and refreshes the archive's agents. */
export async function insertPassages(
  deps: { db: Database; passages: PassageStore },
  ctx: RequestContext,
  archive: Archive,
  inputs: ArchivalPassageInput[],
  /** Where passage `index` is in the request body, for validation errors. */
  locOf: (index: number) => Array<string | number>,
): Promise<Passage[]> {
  const passages = inputs.map((input, index) => {
    const problem = archivalTextProblem(input.text);
    if (problem) throw new UnprocessableError([...locOf(index), 'text'], `Passage too long: ${problem}`);
    const createdAt = input.created_at ? new Date(input.created_at) : null;
    if (createdAt && Number.isNaN(createdAt.getTime())) throw new UnprocessableError([...locOf(index), 'created_at'], 'Invalid ISO 8601 datetime');
    return { text: input.text, tags: input.tags ?? null, metadata: input.metadata ?? null, createdAt, createdById: ctx.userId };
  });
  const prepared = await withProviderCalls(() => deps.passages.prepare({ organizationId: ctx.organizationId, archive, passages }));
  return deps.db.transaction(async (trx) => {
    const stored = await deps.passages.write(trx, prepared);
    await recompileArchiveAgents(trx, ctx.organizationId, archive.id);
    return stored;
  });
}

/** Search date bounds as given (dates, local date-times in `timezone`, or instants); a bound that is none of these is a 422. */
export function searchBounds(
  bounds: { start?: string | null | undefined; end?: string | null | undefined },
  timezone: string,
  loc: { start: Array<string | number>; end: Array<string | number> },
): { start: Date | null; end: Date | null } {
  const parse = (text: string | null | undefined, side: 'start' | 'end') => {
    if (!text) return null;
    const instant = parseSearchBound(text, timezone, side);
    if (!instant) throw new UnprocessableError(loc[side], 'Invalid date or datetime: use ISO 8601, for example 2025-03-01 or 2025-03-01T09:30:00Z');
    return instant;
  };
  return { start: parse(bounds.start, 'start'), end: parse(bounds.end, 'end') };
}
