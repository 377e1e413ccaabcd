import type { Knex } from 'knex';

/**
 * Sharing (spec 000 §3): an agent's shared chat and who may open it, a template's launch link, the per-visitor
 * conversations behind both, and agent files published from agents with their downloads and votes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('launch_links', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('template_id').notNullable().references('agent_templates.id').onDelete('CASCADE');
    t.text('access_level').notNullable().defaultTo('restricted');
    /** The member who shared it: agents its visitors make are recorded as made by them. */
    t.text('shared_by').notNullable();
    t.timestamps(true, true);
    t.unique(['template_id']);
  });
  await knex.raw(`alter table launch_links add constraint launch_links_access_level_check check (access_level in ('restricted', 'organization', 'logged-in', 'everyone'))`);

  await knex.schema.createTable('shared_chats', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('access_level').notNullable().defaultTo('restricted');
    t.text('shared_by').notNullable();
    /** Set on the chat of an agent a launch link made: that agent is its visitor's alone. */
    t.text('launch_link_id').references('launch_links.id').onDelete('SET NULL');
    /** The visitor a launch link made the agent for (`user:<id>`, or `visitor:<hash of their cookie>`). */
    t.text('owner_visitor_key');
    t.timestamps(true, true);
    t.unique(['agent_id']);
    t.unique(['launch_link_id', 'owner_visitor_key']);
  });
  await knex.raw(`alter table shared_chats add constraint shared_chats_access_level_check check (access_level in ('restricted', 'organization', 'logged-in', 'everyone'))`);

  // The visitor's own conversation with a shared agent: a copy of the agent linked to an identity for the visitor.
  await knex.schema.createTable('shared_chat_conversations', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('chat_id').notNullable().references('shared_chats.id').onDelete('CASCADE');
    t.text('visitor_key').notNullable();
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('identity_id').notNullable().references('identities.id').onDelete('CASCADE');
    t.timestamps(true, true);
    t.unique(['chat_id', 'visitor_key']);
  });

  await knex.schema.createTable('published_agent_files', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('agent_id').references('agents.id').onDelete('SET NULL');
    t.text('published_by').references('users.id').onDelete('SET NULL');
    t.text('name').notNullable();
    t.text('description').notNullable();
    t.text('summary').notNullable();
    t.text('access_level').notNullable();
    /** The agent file as it was published (messages left out); what a download serves. */
    t.jsonb('content').notNullable();
    t.integer('download_count').notNullable().defaultTo(0);
    t.integer('upvotes').notNullable().defaultTo(0);
    t.integer('downvotes').notNullable().defaultTo(0);
    t.timestamp('published_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamps(true, true);
    t.unique(['organization_id', 'name']);
    t.index(['access_level', 'download_count']);
  });
  await knex.raw(
    `alter table published_agent_files add constraint published_agent_files_access_level_check check (access_level in ('organization', 'logged-in', 'public', 'unlisted', 'none'))`,
  );

  await knex.schema.createTable('agent_file_votes', (t) => {
    t.text('agent_file_id').notNullable().references('published_agent_files.id').onDelete('CASCADE');
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.smallint('vote').notNullable();
    t.timestamps(true, true);
    t.primary(['agent_file_id', 'user_id']);
  });
  await knex.raw(`alter table agent_file_votes add constraint agent_file_votes_vote_check check (vote in (1, -1))`);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['agent_file_votes', 'published_agent_files', 'shared_chat_conversations', 'shared_chats', 'launch_links']) {
    await knex.schema.dropTable(table);
  }
}
