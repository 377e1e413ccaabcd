import type { Knex } from 'knex';
import type { Run } from '@engram/db';

/**
 * The runs of one conversation of an agent (its default one: `conversation_id` null) take turns in the order they
 * were created; (created_at, id) breaks ties, so every run agrees on the order. The run's own created_at is read
 * in SQL: PostgreSQL keeps microseconds, a JavaScript date only milliseconds. Only unfinished runs matter, and the
 * partial index `runs_unfinished_in_turn_order` holds just those.
 */
export type TurnNeighbour = { runId: string; status: 'created' | 'running' };

function unfinishedOfConversation(db: Knex, run: Run) {
  return db('runs')
    .select({ runId: 'id' }, 'status')
    .where({ organizationId: run.organizationId, agentId: run.agentId })
    .whereIn('status', ['created', 'running'])
    .whereRaw('conversation_id is not distinct from ?', [run.conversationId ?? null])
    .whereNot('id', run.id);
}

/** The latest run of the conversation created before this one that has not finished: the one this run waits for. */
export async function unfinishedPredecessor(db: Knex, run: Run): Promise<TurnNeighbour | undefined> {
  const row = (await unfinishedOfConversation(db, run)
    .whereRaw('(created_at, id) < (select created_at, id from runs where id = ?)', [run.id])
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .first()) as TurnNeighbour | undefined;
  return row;
}

/** The earliest unfinished run of the conversation created after this one: whose turn may come when this one ends. */
export async function unfinishedSuccessor(db: Knex, run: Run): Promise<string | undefined> {
  const row = (await unfinishedOfConversation(db, run)
    .whereRaw('(created_at, id) > (select created_at, id from runs where id = ?)', [run.id])
    .orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }])
    .first()) as TurnNeighbour | undefined;
  return row?.runId;
}
