import { z } from 'zod';
import type { LettaImportView } from '../../services/letta-imports/letta-import-service.js';

/** Where to migrate from: a server speaking the Letta `/v1` API, and a key it accepts (stored sealed, never answered). */
export const StartLettaImportBody = z.object({
  sourceUrl: z.string().trim().min(1).max(2000),
  apiKey: z.string().min(1).max(4000),
  dryRun: z.boolean().default(false),
});

export const LettaImportParams = z.object({ import_id: z.string() });

export const ListLettaImportsQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) });

const Problem = z.object({ kind: z.string(), sourceId: z.string().nullable(), name: z.string().nullable(), reason: z.string() });

/** A run as the console and the command watch it: where it is, what moved, what the source holds and what could not move. */
export const LettaImportResponse = z.object({
  id: z.string(),
  sourceUrl: z.string(),
  dryRun: z.boolean(),
  status: z.enum(['running', 'completed', 'failed']),
  phase: z.enum(['planning', 'shared', 'agents', 'links', 'done']),
  workflowId: z.string(),
  progress: z.object({
    agentsTotal: z.number(),
    agentsDone: z.number(),
    agentsFailed: z.number(),
    messages: z.number(),
    passages: z.number(),
    /** What this run created (or bound to), by kind; a second run over the same source creates nothing. */
    created: z.record(z.string(), z.number()),
  }),
  plan: z
    .object({
      agents: z.array(z.object({ sourceId: z.string(), name: z.string(), messages: z.number(), passages: z.number() })),
      blocks: z.number(),
      tools: z.number(),
      identities: z.number(),
      groups: z.number(),
      folders: z.number(),
      files: z.number(),
      mcpServers: z.number(),
      conversations: z.number(),
    })
    .nullable(),
  problems: z.array(Problem),
  error: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});

export function lettaImportToWire({ run, progress, workflowId }: LettaImportView): z.infer<typeof LettaImportResponse> {
  return {
    id: run.id,
    sourceUrl: run.sourceUrl,
    dryRun: run.dryRun,
    status: run.status,
    phase: run.phase,
    workflowId,
    progress,
    plan: run.plan,
    problems: run.problems,
    error: run.error,
    createdAt: run.createdAt.toISOString(),
    completedAt: run.completedAt?.toISOString() ?? null,
  };
}
