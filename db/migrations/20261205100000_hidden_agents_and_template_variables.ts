import type { Knex } from 'knex';

/**
 * What the platform hides, named where it is stored: an agent made for a template's editor (`simulated`), for an
 * evaluation (`evaluation`) or as a shared chat's copy for one visitor (`visitor_copy`), and the identity made for
 * a shared chat's visitor (`visitor`). Lists, counts, searches, filters and limits leave out every row with a kind
 * (`hiddenAgents` in `@engram/db`), so one column is the whole definition. The client's own `hidden` flag is not
 * it: a client may set that, and the platform's hiding must not be undone by a PATCH.
 *
 * Also: the memory variables a migration was given (for agents that have no value of their own), and those an A/B
 * test arm gives the agents it makes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.text('hidden_kind');
  });
  await knex.raw(`alter table agents add constraint agents_hidden_kind check (hidden_kind in ('simulated', 'evaluation', 'visitor_copy'))`);
  await knex.raw(`update agents set hidden_kind = 'simulated' where id in (select agent_id from simulated_agents where agent_id is not null)`);
  await knex.raw(`update agents set hidden_kind = 'evaluation' where id in (select agent_id from dataset_run_results where agent_id is not null)`);
  await knex.raw(`update agents set hidden_kind = 'visitor_copy' where id in (select agent_id from shared_chat_conversations)`);
  // Most agents are visible: the index holds only the hidden ones, which the lists exclude.
  await knex.raw(`create index agents_hidden on agents (organization_id, id) where hidden_kind is not null`);

  await knex.schema.alterTable('identities', (t) => {
    t.text('hidden_kind');
  });
  await knex.raw(`alter table identities add constraint identities_hidden_kind check (hidden_kind in ('visitor'))`);
  await knex.raw(`update identities set hidden_kind = 'visitor' where id in (select identity_id from shared_chat_conversations)`);

  await knex.schema.alterTable('template_migrations', (t) => {
    t.jsonb('memory_variables').notNullable().defaultTo('{}');
  });
  await knex.schema.alterTable('ab_test_templates', (t) => {
    t.jsonb('memory_variables').notNullable().defaultTo('{}');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ab_test_templates', (t) => {
    t.dropColumn('memory_variables');
  });
  await knex.schema.alterTable('template_migrations', (t) => {
    t.dropColumn('memory_variables');
  });
  await knex.schema.alterTable('identities', (t) => {
    t.dropColumn('hidden_kind');
  });
  await knex.raw('drop index agents_hidden');
  await knex.schema.alterTable('agents', (t) => {
    t.dropColumn('hidden_kind');
  });
}
