import { Agent, GroupTurn, type Database } from '@engram/db';
import type { NotificationHub } from '../runs/notification-hub.js';
import { followRunLog, type LogItem } from '../runs/run-log-reader.js';

export type FollowTurnOptions = {
  organizationId: string;
  turnId: string;
  signal: AbortSignal;
  pollIntervalMs: number;
  includeDeltas: boolean;
};

/** Each run's own end; the turn's end is written once, after its last member. */
const RUN_END_FRAMES = new Set(['stop_reason', 'usage_statistics']);

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * A group turn read as one log: each member's run in speaking order, its frames marked with who said them
 * (`name`, `sender_id`), then the turn's stop reason and summed usage. Sequence numbers count across the
 * turn. The turn's workflow notifies under the turn id when it adds a run or ends, so readers wake at once.
 */
export async function* followGroupTurn(deps: { db: Database; notifications: NotificationHub }, options: FollowTurnOptions): AsyncGenerator<LogItem> {
  let wake: () => void = () => undefined;
  const stop = deps.notifications.onRunEvents(options.turnId, () => wake());
  const onAbort = () => wake();
  options.signal.addEventListener('abort', onAbort);
  const speakers = new Map<string, { name: string; id: string }>();
  let seq = 0;
  let followed = 0;
  try {
    while (!options.signal.aborted) {
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const turn = await GroupTurn.query(deps.db).forOrg(options.organizationId).findById(options.turnId);
      if (!turn) return;
      if (followed < turn.runIds.length) {
        const runId = turn.runIds[followed]!;
        followed += 1;
        const runItems = followRunLog(deps, { organizationId: options.organizationId, runId, after: 0, signal: options.signal, pollIntervalMs: options.pollIntervalMs, batchSize: 500, includeDeltas: options.includeDeltas });
        for await (const item of runItems) {
          if (item.kind === 'frame' && RUN_END_FRAMES.has(item.frame.message_type)) continue;
          const speaker = await speakerOf(deps.db, options.organizationId, runId, speakers);
          const frame = speaker ? { ...item.frame, name: speaker.name, sender_id: speaker.id } : item.frame;
          if (item.kind === 'delta') yield { ...item, frame };
          else yield { kind: 'frame', seqId: ++seq, frame };
        }
        continue;
      }
      if (TERMINAL.has(turn.status)) {
        if (turn.failure) {
          yield { kind: 'frame', seqId: ++seq, frame: { message_type: 'error_message', error_type: turn.failure.errorType, message: turn.failure.message, detail: null } };
        }
        yield { kind: 'frame', seqId: ++seq, frame: { message_type: 'stop_reason', stop_reason: turn.stopReason ?? 'end_turn' } };
        yield {
          kind: 'frame',
          seqId: ++seq,
          frame: {
            message_type: 'usage_statistics',
            completion_tokens: turn.usage.completion_tokens ?? 0,
            prompt_tokens: turn.usage.prompt_tokens ?? 0,
            total_tokens: turn.usage.total_tokens ?? 0,
            step_count: turn.usage.step_count ?? 0,
            run_ids: turn.runIds,
          },
        };
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([woken, new Promise<void>((resolve) => (timer = setTimeout(resolve, options.pollIntervalMs)))]);
      clearTimeout(timer);
    }
  } finally {
    stop();
    options.signal.removeEventListener('abort', onAbort);
  }
}

/** The member a run belongs to (read once per run). */
async function speakerOf(
  db: Database,
  organizationId: string,
  runId: string,
  known: Map<string, { name: string; id: string }>,
): Promise<{ name: string; id: string } | undefined> {
  const cached = known.get(runId);
  if (cached) return cached;
  const agent = await Agent.query(db)
    .forOrg(organizationId)
    .join('runs', 'runs.agent_id', 'agents.id')
    .where('runs.id', runId)
    .select('agents.id', 'agents.name')
    .first();
  if (!agent) return undefined;
  const speaker = { name: agent.name, id: agent.id };
  known.set(runId, speaker);
  return speaker;
}
