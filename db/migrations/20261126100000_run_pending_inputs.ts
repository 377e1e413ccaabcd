import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { runInputContent, type RunInput, type RunInputMessage } from '@engram/core';

/**
 * A run's input messages are stored when the run is accepted, in the transaction that records the run, so
 * a turn whose model call fails or is cancelled still shows what the user typed. `pending_input_ids` lists
 * those messages until the run's first step puts them in the agent's context (a queued run's input must
 * not reach the model before its turn, and a failed turn's input never does).
 *
 * Runs still going at the upgrade kept their inputs only in `request`, to be stored with their first step
 * (`metadata.inputs_stored` said whether that had happened): their inputs are stored now, so their next
 * model call reads them as it would have.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('runs', (t) => {
    t.specificType('pending_input_ids', 'text[]').notNullable().defaultTo('{}');
  });
  const unstored = await knex('runs')
    .whereIn('status', ['created', 'running'])
    .whereRaw(`coalesce(metadata->>'inputs_stored', 'false') <> 'true'`)
    .select('id', 'organization_id', 'agent_id', 'request', 'created_at');
  for (const run of unstored as Array<{ id: string; organizationId: string; agentId: string; request: { messages: RunInput[] }; createdAt: Date }>) {
    const inputs = run.request.messages.filter((input): input is RunInputMessage => input.type === 'message');
    if (inputs.length === 0) continue;
    const rows = inputs.map((input, index) => ({
      id: `message-${randomUUID()}`,
      organizationId: run.organizationId,
      agentId: run.agentId,
      runId: run.id,
      role: input.role,
      content: JSON.stringify(runInputContent(input)),
      name: input.name ?? null,
      otid: input.otid ?? null,
      senderId: input.sender_id ?? null,
      createdAt: new Date(run.createdAt.getTime() + index),
    }));
    await knex('messages').insert(rows);
    await knex('runs').where({ id: run.id }).update({ pendingInputIds: rows.map((row) => row.id) });
  }
  await knex.raw(`update runs set metadata = metadata - 'inputs_stored' where metadata->'inputs_stored' is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('runs', (t) => {
    t.dropColumn('pending_input_ids');
  });
}
