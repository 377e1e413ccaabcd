import type { Knex } from 'knex';
import { plainText, platformRunRequest, spokenText, type StoredContentPart } from '@engram/core';
import { Agent, Group, GroupAgent, insertQueuedRun, Message, Run, toStoredMessage, type Database } from '@engram/db';

export type SleeptimeDeps = { db: Database };

export type SleeptimeRun = { agentId: string; runId: string; maxSteps: number; runType: string };

const RUN_TYPE = 'sleeptime_agent_send_message_async';

/** What a sleep-time agent is asked to do with a span of its primary agent's conversation. */
function sleeptimePrompt(primaryName: string, transcript: string[]): string {
  return [
    `The conversation below took place between the user and ${primaryName}, the primary agent whose memory you maintain, since you last ran.`,
    'Update the memory blocks you share with it with whatever is worth keeping, then call memory_finish_edits.',
    '',
    '<messages>',
    ...transcript,
    '</messages>',
  ].join('\n');
}

/** The primary agent's messages after the group's last processed one, up to and including what this run wrote. */
async function unprocessedSpan(trx: Knex, run: Run, group: Group): Promise<Message[]> {
  const lastOfRun = await Message.query(trx).forOrg(run.organizationId).where({ runId: run.id }).max('sequence as last').first();
  const upTo = (lastOfRun as unknown as { last: string | null } | undefined)?.last;
  if (!upTo) return [];
  const query = Message.query(trx)
    .forOrg(run.organizationId)
    .where({ agentId: run.agentId })
    .whereIn('role', ['user', 'assistant'])
    .where('sequence', '<=', upTo)
    .orderBy('sequence');
  if (group.lastProcessedMessageId) {
    query.where('sequence', '>', Message.query(trx).forOrg(run.organizationId).findById(group.lastProcessedMessageId).select('sequence'));
  }
  return query;
}

/** The sleep-time bookkeeping of a primary agent's completed turn: its group's turn counter and the spans to process. */
export function createSleeptimeActivities(deps: SleeptimeDeps) {
  return {
    /**
     * Counts the turn in each sleeptime group the run's agent manages, and where a group's frequency says it is
     * due, records one run per sleep-time agent over the messages since the group's last processed one, moving
     * that mark to the span's end in the same transaction. Keyed by the run: a retry returns what the first
     * attempt recorded, so each span is handed out exactly once.
     */
    async dispatchSleeptimeRuns(input: { organizationId: string; runId: string }): Promise<SleeptimeRun[]> {
      return deps.db.transaction(async (trx) => {
        const run = await Run.query(trx).forOrg(input.organizationId).findById(input.runId).forUpdate();
        if (!run) return [];
        const recorded = run.metadata.sleeptime_runs as SleeptimeRun[] | undefined;
        if (recorded) return recorded;
        const primary = await Agent.query(trx).forOrg(input.organizationId).findById(run.agentId);
        const groups = await Group.query(trx).forOrg(input.organizationId).where({ managerAgentId: run.agentId, managerType: 'sleeptime' }).orderBy('id').forUpdate();
        const planned: SleeptimeRun[] = [];
        for (const group of groups) {
          const turnsCounter = group.turnsCounter + 1;
          const due = !group.sleeptimeAgentFrequency || turnsCounter % group.sleeptimeAgentFrequency === 0;
          const span = due ? await unprocessedSpan(trx, run, group) : [];
          const transcript = span.flatMap((message) => {
            const text = message.role === 'user' ? plainText(message.content as StoredContentPart[]) : spokenText(toStoredMessage(message));
            if (!text) return [];
            const speaker = message.role === 'user' ? (message.name ?? 'user') : (primary?.name ?? 'assistant');
            return [`${speaker}: ${text}`];
          });
          if (transcript.length > 0) {
            const sleeptimeAgents = await GroupAgent.query(trx).forOrg(input.organizationId).where({ groupId: group.id }).orderBy('position');
            for (const { agentId } of sleeptimeAgents) {
              const queued = await insertQueuedRun(trx, {
                organizationId: input.organizationId,
                agentId,
                request: platformRunRequest([{ type: 'message', role: 'user', content: sleeptimePrompt(primary?.name ?? run.agentId, transcript) }]),
                runType: RUN_TYPE,
                callbackUrl: null,
                metadata: {
                  sleeptime_group_id: group.id,
                  parent_run_id: run.id,
                  processed_message_ids: { from: span[0]!.id, to: span.at(-1)!.id },
                },
                idempotencyKey: `sleeptime:${run.id}:${group.id}`,
              });
              if (queued) planned.push({ agentId, runId: queued.id, maxSteps: (queued.request as { maxSteps: number }).maxSteps, runType: RUN_TYPE });
            }
          }
          await group.$query(trx).patch({
            turnsCounter,
            ...(span.length > 0 ? { lastProcessedMessageId: span.at(-1)!.id } : {}),
          });
        }
        await run.$query(trx).patch({ metadata: { ...run.metadata, sleeptime_runs: planned } });
        return planned;
      });
    },
  };
}

export type SleeptimeActivities = ReturnType<typeof createSleeptimeActivities>;
