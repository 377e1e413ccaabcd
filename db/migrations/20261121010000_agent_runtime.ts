import type { Knex } from 'knex';

/** Agents, their memory and tools, providers, and the durable run records: runs, steps, messages, run events. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('providers', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('provider_type').notNullable();
    t.text('provider_category').notNullable().defaultTo('byok');
    t.text('api_key_enc');
    t.text('access_key_enc');
    t.text('base_url');
    t.text('region');
    t.text('api_version');
    t.timestamps(true, true);
    t.unique(['organization_id', 'name']);
  });

  await knex.schema.createTable('agents', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').references('projects.id').onDelete('SET NULL');
    t.text('name').notNullable();
    t.text('agent_type').notNullable();
    t.text('system').notNullable();
    t.text('description');
    t.jsonb('llm_config').notNullable();
    t.jsonb('embedding_config');
    t.jsonb('tool_rules').notNullable().defaultTo('[]');
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('metadata');
    t.specificType('message_ids', 'text[]').notNullable().defaultTo('{}');
    t.boolean('message_buffer_autoclear').notNullable().defaultTo(false);
    t.text('timezone').notNullable().defaultTo('UTC');
    t.integer('max_files_open');
    t.integer('per_file_view_window_char_limit');
    t.boolean('hidden');
    t.jsonb('response_format');
    t.jsonb('tool_exec_environment_variables').notNullable().defaultTo('[]');
    t.timestamp('last_run_completion', { useTz: true });
    t.bigInteger('last_run_duration_ms');
    t.text('last_stop_reason');
    t.text('created_by_id');
    t.text('last_updated_by_id');
    t.timestamps(true, true);
    t.index(['organization_id', 'created_at']);
  });
  await knex.raw('create index agents_tags_gin on agents using gin (tags)');

  await knex.schema.createTable('blocks', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').references('projects.id').onDelete('SET NULL');
    t.text('label').notNullable();
    t.text('value').notNullable().defaultTo('');
    t.integer('limit').notNullable();
    t.text('description');
    t.boolean('read_only').notNullable().defaultTo(false);
    t.boolean('hidden');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.boolean('is_template').notNullable().defaultTo(false);
    t.text('template_name');
    t.text('template_id');
    t.text('base_template_id');
    t.text('deployment_id');
    t.text('entity_id');
    t.boolean('preserve_on_migration').notNullable().defaultTo(false);
    t.text('created_by_id');
    t.text('last_updated_by_id');
    t.timestamps(true, true);
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('agent_blocks', (t) => {
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('block_id').notNullable().references('blocks.id').onDelete('CASCADE').index();
    t.text('organization_id').notNullable();
    t.text('label').notNullable();
    t.integer('position').notNullable().defaultTo(0);
    t.primary(['agent_id', 'block_id']);
    t.unique(['agent_id', 'label']);
  });

  await knex.schema.createTable('tools', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id');
    t.text('name').notNullable();
    t.text('tool_type').notNullable();
    t.text('description');
    t.text('source_type').notNullable().defaultTo('python');
    t.text('source_code');
    t.jsonb('json_schema').notNullable();
    t.jsonb('args_json_schema');
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.integer('return_char_limit').notNullable().defaultTo(50000);
    t.jsonb('pip_requirements');
    t.jsonb('npm_requirements');
    t.boolean('default_requires_approval');
    t.boolean('enable_parallel_execution').notNullable().defaultTo(false);
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.text('created_by_id');
    t.text('last_updated_by_id');
    t.timestamps(true, true);
    t.unique(['organization_id', 'name']);
  });

  await knex.schema.createTable('agent_tools', (t) => {
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('tool_id').notNullable().references('tools.id').onDelete('CASCADE').index();
    t.text('organization_id').notNullable();
    t.primary(['agent_id', 'tool_id']);
  });

  await knex.schema.createTable('runs', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('user_id');
    t.text('status').notNullable();
    t.text('stop_reason');
    t.text('job_type').notNullable().defaultTo('run');
    t.boolean('background').notNullable().defaultTo(false);
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.jsonb('request_config');
    /** The whole send request (input messages and options) the workflow works from. */
    t.jsonb('request').notNullable();
    /** sha256 of the input messages' otids, so a retried send finds its run. */
    t.text('idempotency_key');
    t.boolean('cancel_requested').notNullable().defaultTo(false);
    t.text('callback_url');
    t.timestamp('callback_sent_at', { useTz: true });
    t.integer('callback_status_code');
    t.text('callback_error');
    t.bigInteger('ttft_ns');
    t.bigInteger('total_duration_ns');
    t.jsonb('usage').notNullable().defaultTo('{}');
    /** Highest seq_id in run_events; bumped in the same transaction as each append, so seq ids have no gaps. */
    t.integer('last_seq').notNullable().defaultTo(0);
    t.timestamp('started_at', { useTz: true });
    t.timestamp('completed_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['organization_id', 'agent_id', 'created_at']);
    t.index(['organization_id', 'status']);
    t.unique(['agent_id', 'idempotency_key']);
  });

  await knex.schema.createTable('steps', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id');
    t.text('run_id').references('runs.id').onDelete('CASCADE').index();
    t.text('agent_id').references('agents.id').onDelete('CASCADE');
    t.integer('step_index').notNullable();
    t.text('origin');
    t.text('provider_id');
    t.text('provider_name');
    t.text('provider_category');
    t.text('model');
    t.text('model_handle');
    t.text('model_endpoint');
    t.integer('context_window_limit');
    t.integer('completion_tokens').notNullable().defaultTo(0);
    t.integer('prompt_tokens').notNullable().defaultTo(0);
    t.integer('total_tokens').notNullable().defaultTo(0);
    t.text('stop_reason');
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.text('tid');
    t.text('trace_id');
    t.text('feedback');
    t.text('error_type');
    t.jsonb('error_data');
    t.text('status').notNullable().defaultTo('success');
    t.bigInteger('step_start_ns');
    t.bigInteger('llm_request_start_ns');
    t.bigInteger('llm_request_ns');
    t.bigInteger('tool_execution_ns');
    t.bigInteger('step_ns');
    /** What the step decided, replayed as-is when its activity is retried. */
    t.jsonb('outcome');
    t.timestamps(true, true);
    t.index(['organization_id', 'created_at']);
  });

  // Kept apart from steps: written by the model-call activity before its step is applied.
  await knex.schema.createTable('step_traces', (t) => {
    t.text('step_id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('run_id').index();
    t.jsonb('request_json');
    t.jsonb('response_json');
    t.timestamps(true, true);
  });

  await knex.schema.createTable('messages', (t) => {
    t.text('id').primary();
    /** Total order of an agent's history; created_at alone ties within a step. */
    t.bigIncrements('sequence', { primaryKey: false });
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('run_id');
    t.text('step_id');
    t.text('role').notNullable();
    t.jsonb('content').notNullable().defaultTo('[]');
    t.text('name');
    t.text('otid');
    t.text('sender_id');
    t.text('model');
    t.jsonb('tool_calls');
    t.text('tool_call_id');
    t.jsonb('tool_returns');
    t.jsonb('approvals');
    t.boolean('approve');
    t.text('approval_request_id');
    t.text('denial_reason');
    t.text('group_id');
    t.text('batch_item_id');
    t.boolean('is_err');
    t.timestamps(true, true);
    t.index(['organization_id', 'agent_id', 'sequence']);
    t.index(['run_id', 'sequence']);
  });

  await knex.schema.createTable('run_events', (t) => {
    t.text('run_id').notNullable().references('runs.id').onDelete('CASCADE');
    t.integer('seq_id').notNullable();
    t.text('organization_id').notNullable();
    t.text('message_type').notNullable();
    t.jsonb('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['run_id', 'seq_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['run_events', 'messages', 'step_traces', 'steps', 'runs', 'agent_tools', 'tools', 'agent_blocks', 'blocks', 'agents', 'providers']) {
    await knex.schema.dropTable(table);
  }
}
