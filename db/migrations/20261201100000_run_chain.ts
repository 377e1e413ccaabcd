import type { Knex } from 'knex';

/**
 * Each run is its own workflow, and the runs of one conversation take turns in the order they were created: a run
 * begins once no earlier run of its conversation is unfinished, and a finishing run hands the turn to the next one.
 * Both look for the unfinished runs of an agent around a point in time; this index holds only those, so the search
 * stays a few rows however long the agent's history grows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create index runs_unfinished_in_turn_order on runs (organization_id, agent_id, created_at, id)
      where status in ('created', 'running')
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index runs_unfinished_in_turn_order');
}
