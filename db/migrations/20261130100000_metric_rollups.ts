import type { Knex } from 'knex';

/**
 * Rollups the observability metrics read instead of one row per run: per organization, project, template family
 * and quarter hour. A quarter hour is the finest grain any timezone's hour or day boundary needs (every UTC offset
 * in use is a multiple of 15 minutes), so an hourly or daily series in any timezone is a sum of whole buckets.
 *
 * Triggers keep them: a step (its model, tokens and, once metering books it, its charge) adds itself to its model's
 * usage; a trace summary (`traces`, rewritten by the span exporter as batches arrive) moves its old
 * contribution out and its new one in, and a run's time to first token (`runs.ttft_ns`, set once) adds itself.
 * Being triggers, every writer keeps them exact in its own transaction. Deleting a trace or a run (trace retention,
 * a deleted agent) leaves the rollups as they are: the metrics of a month outlive the spans it kept.
 *
 * Latencies are kept as histograms: bin `floor(16·log2(ms + 1))` counts a run, so a bin spans 4.4% of its value and
 * a percentile read from the bins is within 2.2% of the run it names.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function engram_latency_bin(milliseconds double precision) returns integer
      language sql immutable parallel safe
      return floor(16 * log(2.0::numeric, (greatest(milliseconds, 0) + 1)::numeric))::integer
  `);
  await knex.raw(`
    create function engram_metric_bucket(at timestamptz) returns timestamptz
      language sql immutable parallel safe
      return date_bin('15 minutes', at, timestamptz '2000-01-01 00:00:00+00')
  `);

  // A trace summary's calls per tool (`{ "<tool>": { "calls": n, "failed": m } }`), merged batch by batch like its other counts.
  await knex.schema.alterTable('traces', (t) => t.jsonb('tool_calls').notNullable().defaultTo('{}'));
  await knex.raw(`
    create function engram_add_tool_calls(earlier jsonb, later jsonb) returns jsonb
      language sql immutable parallel safe
      return (select coalesce(jsonb_object_agg(tool, jsonb_build_object('calls', calls, 'failed', failed)), '{}'::jsonb)
                from (select tool, sum((counts ->> 'calls')::integer) as calls, sum((counts ->> 'failed')::integer) as failed
                        from (select * from jsonb_each(earlier) union all select * from jsonb_each(later)) as each_tool(tool, counts)
                       group by tool) as merged)
  `);
  await knex.raw(`
    update traces set tool_calls = counted.tool_calls
      from (select trace_id, jsonb_object_agg(tool, jsonb_build_object('calls', calls, 'failed', failed)) as tool_calls
              from (select trace_id, coalesce(attributes ->> 'gen_ai.tool.name', substr(name, length('execute_tool ') + 1)) as tool,
                           count(*) as calls, count(*) filter (where status_code = 'error') as failed
                      from trace_spans where attributes ->> 'gen_ai.operation.name' = 'execute_tool' group by 1, 2) as per_tool
             group by trace_id) as counted
     where traces.trace_id = counted.trace_id
  `);

  await knex.schema.createTable('run_metric_buckets', (t) => {
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    /** '' when the run named no project or template family, so the key stays a plain primary key. */
    t.text('project_id').notNullable();
    t.text('template_family').notNullable();
    t.timestamp('bucket_start', { useTz: true }).notNullable();
    t.integer('runs').notNullable().defaultTo(0);
    t.integer('api_error_runs').notNullable().defaultTo(0);
    t.integer('tool_error_runs').notNullable().defaultTo(0);
    t.bigInteger('steps').notNullable().defaultTo(0);
    /** `{ "<bin>": runs }` of run durations. */
    t.jsonb('duration_bins').notNullable().defaultTo('{}');
    t.integer('ttft_runs').notNullable().defaultTo(0);
    /** `{ "<bin>": runs }` of times to first token, by the run's creation. */
    t.jsonb('ttft_bins').notNullable().defaultTo('{}');
    t.primary(['organization_id', 'bucket_start', 'project_id', 'template_family']);
  });
  // Which agents ran when, a row per agent and UTC day with its runs per quarter hour: counting distinct agents per
  // local hour or day then reads a row per agent-day instead of one per agent-quarter-hour.
  await knex.schema.createTable('agent_activity_days', (t) => {
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').notNullable();
    t.text('template_family').notNullable();
    t.timestamp('day_start', { useTz: true }).notNullable();
    t.text('agent_id').notNullable();
    /** Runs started in each of the day's 96 quarter hours. */
    t.specificType('quarter_runs', 'integer[]').notNullable();
    t.primary(['organization_id', 'day_start', 'project_id', 'template_family', 'agent_id']);
  });
  await knex.schema.createTable('tool_metric_buckets', (t) => {
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').notNullable();
    t.text('template_family').notNullable();
    t.timestamp('bucket_start', { useTz: true }).notNullable();
    t.text('tool_name').notNullable();
    t.integer('runs').notNullable().defaultTo(0);
    t.integer('failed_runs').notNullable().defaultTo(0);
    t.integer('calls').notNullable().defaultTo(0);
    t.integer('failed_calls').notNullable().defaultTo(0);
    t.primary(['organization_id', 'bucket_start', 'project_id', 'template_family', 'tool_name']);
  });
  // Steps, tokens and credits per model: the usage summary. A run counts once, for the model of its first step.
  await knex.schema.createTable('model_usage_buckets', (t) => {
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').notNullable();
    t.text('model').notNullable();
    t.timestamp('bucket_start', { useTz: true }).notNullable();
    t.integer('steps').notNullable().defaultTo(0);
    t.integer('runs').notNullable().defaultTo(0);
    t.bigInteger('prompt_tokens').notNullable().defaultTo(0);
    t.bigInteger('completion_tokens').notNullable().defaultTo(0);
    t.bigInteger('total_tokens').notNullable().defaultTo(0);
    t.bigInteger('credits').notNullable().defaultTo(0);
    t.primary(['organization_id', 'bucket_start', 'project_id', 'model']);
  });
  // A metric filtered by agent reads that agent's own runs, which this index finds without the rest (runs has its own).
  await knex.schema.alterTable('traces', (t) => t.index(['organization_id', 'agent_id', 'started_at']));
  await knex.schema.alterTable('steps', (t) => t.index(['organization_id', 'agent_id', 'created_at']));

  await knex.raw(`
    create function engram_count_trace(summary traces, sign integer) returns void language plpgsql as $$
    declare
      bucket timestamptz := engram_metric_bucket(summary.started_at);
      project text := coalesce(summary.project_id, '');
      family text := coalesce(summary.template_family, '');
      bin text := engram_latency_bin(summary.duration_ms)::text;
      day timestamptz := date_bin('1 day', summary.started_at, timestamptz '2000-01-01 00:00:00+00');
      quarter integer := 1 + floor(extract(epoch from bucket - day) / 900)::integer;
    begin
      if summary.organization_id is null or summary.run_id is null then
        return;
      end if;
      insert into run_metric_buckets as b (organization_id, project_id, template_family, bucket_start, runs, api_error_runs, tool_error_runs, steps, duration_bins)
      values (summary.organization_id, project, family, bucket, sign, case when summary.has_api_error then sign else 0 end,
              case when summary.has_tool_error then sign else 0 end, sign * summary.agent_steps, jsonb_build_object(bin, sign))
      on conflict (organization_id, bucket_start, project_id, template_family) do update set
        runs = b.runs + excluded.runs,
        api_error_runs = b.api_error_runs + excluded.api_error_runs,
        tool_error_runs = b.tool_error_runs + excluded.tool_error_runs,
        steps = b.steps + excluded.steps,
        duration_bins = b.duration_bins || jsonb_build_object(bin, coalesce((b.duration_bins ->> bin)::integer, 0) + sign);
      if summary.agent_id is not null then
        insert into agent_activity_days (organization_id, project_id, template_family, day_start, agent_id, quarter_runs)
        values (summary.organization_id, project, family, day, summary.agent_id, array_fill(0, array[96]))
        on conflict do nothing;
        update agent_activity_days set quarter_runs[quarter] = quarter_runs[quarter] + sign
         where organization_id = summary.organization_id and day_start = day and project_id = project
           and template_family = family and agent_id = summary.agent_id;
      end if;
      insert into tool_metric_buckets as t (organization_id, project_id, template_family, bucket_start, tool_name, runs, failed_runs, calls, failed_calls)
      select summary.organization_id, project, family, bucket, tool_name, sign, case when summary.has_tool_error then sign else 0 end,
             sign * coalesce((summary.tool_calls -> tool_name ->> 'calls')::integer, 0), sign * coalesce((summary.tool_calls -> tool_name ->> 'failed')::integer, 0)
        from unnest(summary.function_names) as tool_name
      on conflict (organization_id, bucket_start, project_id, template_family, tool_name) do update set
        runs = t.runs + excluded.runs,
        failed_runs = t.failed_runs + excluded.failed_runs,
        calls = t.calls + excluded.calls,
        failed_calls = t.failed_calls + excluded.failed_calls;
    end $$
  `);
  await knex.raw(`
    create function engram_roll_up_trace() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' then
        -- Most batches only add spans: nothing a metric reads has moved.
        if (old.organization_id, old.project_id, old.template_family, old.agent_id, old.run_id, old.started_at, old.duration_ms,
            old.agent_steps, old.has_api_error, old.has_tool_error, old.function_names, old.tool_calls)
           is not distinct from
           (new.organization_id, new.project_id, new.template_family, new.agent_id, new.run_id, new.started_at, new.duration_ms,
            new.agent_steps, new.has_api_error, new.has_tool_error, new.function_names, new.tool_calls) then
          return new;
        end if;
        perform engram_count_trace(old, -1);
      end if;
      perform engram_count_trace(new, 1);
      return new;
    end $$
  `);
  await knex.raw(`create trigger traces_roll_up after insert or update on traces for each row execute function engram_roll_up_trace()`);

  await knex.raw(`
    create function engram_count_first_token(run runs, sign integer) returns void language plpgsql as $$
    declare
      bin text := engram_latency_bin(run.ttft_ns / 1e6)::text;
      family text := coalesce((select base_template_id from agents where agents.organization_id = run.organization_id and agents.id = run.agent_id), '');
    begin
      if run.ttft_ns is null then
        return;
      end if;
      insert into run_metric_buckets as b (organization_id, project_id, template_family, bucket_start, ttft_runs, ttft_bins)
      values (run.organization_id, coalesce(run.project_id, ''), family, engram_metric_bucket(run.created_at), sign, jsonb_build_object(bin, sign))
      on conflict (organization_id, bucket_start, project_id, template_family) do update set
        ttft_runs = b.ttft_runs + excluded.ttft_runs,
        ttft_bins = b.ttft_bins || jsonb_build_object(bin, coalesce((b.ttft_bins ->> bin)::integer, 0) + sign);
    end $$
  `);
  await knex.raw(`
    create function engram_roll_up_first_token() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' then
        if (old.ttft_ns, old.created_at, old.project_id) is not distinct from (new.ttft_ns, new.created_at, new.project_id) then
          return new;
        end if;
        perform engram_count_first_token(old, -1);
      end if;
      perform engram_count_first_token(new, 1);
      return new;
    end $$
  `);
  await knex.raw(`create trigger runs_roll_up_first_token after insert or update of ttft_ns, created_at, project_id on runs for each row execute function engram_roll_up_first_token()`);

  await knex.raw(`
    create function engram_count_step(step steps, sign integer) returns void language plpgsql as $$
    begin
      insert into model_usage_buckets as u (organization_id, project_id, model, bucket_start, steps, runs, prompt_tokens, completion_tokens, total_tokens)
      values (step.organization_id, coalesce(step.project_id, ''), coalesce(step.model_handle, step.model, 'unknown'), engram_metric_bucket(step.created_at),
              sign, case when step.step_index = 0 and step.run_id is not null then sign else 0 end,
              sign * step.prompt_tokens, sign * step.completion_tokens, sign * step.total_tokens)
      on conflict (organization_id, bucket_start, project_id, model) do update set
        steps = u.steps + excluded.steps,
        runs = u.runs + excluded.runs,
        prompt_tokens = u.prompt_tokens + excluded.prompt_tokens,
        completion_tokens = u.completion_tokens + excluded.completion_tokens,
        total_tokens = u.total_tokens + excluded.total_tokens;
    end $$
  `);
  await knex.raw(`
    create function engram_roll_up_step() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' then
        if (old.organization_id, old.project_id, old.model_handle, old.model, old.created_at, old.step_index, old.run_id,
            old.prompt_tokens, old.completion_tokens, old.total_tokens)
           is not distinct from
           (new.organization_id, new.project_id, new.model_handle, new.model, new.created_at, new.step_index, new.run_id,
            new.prompt_tokens, new.completion_tokens, new.total_tokens) then
          return new;
        end if;
        perform engram_count_step(old, -1);
      end if;
      perform engram_count_step(new, 1);
      return new;
    end $$
  `);
  await knex.raw(`create trigger steps_roll_up after insert or update on steps for each row execute function engram_roll_up_step()`);
  // Metering books a step's charge after the step is written: the credits join the step's model and quarter hour then.
  await knex.raw(`
    create function engram_roll_up_step_charge() returns trigger language plpgsql as $$
    begin
      insert into model_usage_buckets as u (organization_id, project_id, model, bucket_start, credits)
      select steps.organization_id, coalesce(steps.project_id, ''), coalesce(steps.model_handle, steps.model, 'unknown'), engram_metric_bucket(steps.created_at), new.amount
        from steps where steps.id = new.step_id and steps.organization_id = new.organization_id
      on conflict (organization_id, bucket_start, project_id, model) do update set credits = u.credits + excluded.credits;
      return new;
    end $$
  `);
  await knex.raw(`
    create trigger transactions_roll_up_step_charge after insert on transactions for each row
      when (new.source = 'inference' and new.type = 'subtraction' and new.step_id is not null)
      execute function engram_roll_up_step_charge()
  `);

  // What was stored before the rollups existed.
  await knex.raw(`select engram_count_trace(traces, 1) from traces`);
  await knex.raw(`select engram_count_first_token(runs, 1) from runs where ttft_ns is not null`);
  await knex.raw(`select engram_count_step(steps, 1) from steps`);
  await knex.raw(`
    insert into model_usage_buckets as u (organization_id, project_id, model, bucket_start, credits)
    select steps.organization_id, coalesce(steps.project_id, ''), coalesce(steps.model_handle, steps.model, 'unknown'), engram_metric_bucket(steps.created_at), sum(transactions.amount)
      from transactions join steps on steps.id = transactions.step_id and steps.organization_id = transactions.organization_id
     where transactions.source = 'inference' and transactions.type = 'subtraction'
     group by 1, 2, 3, 4
    on conflict (organization_id, bucket_start, project_id, model) do update set credits = u.credits + excluded.credits
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger transactions_roll_up_step_charge on transactions');
  await knex.raw('drop trigger steps_roll_up on steps');
  await knex.raw('drop function engram_roll_up_step_charge, engram_roll_up_step, engram_count_step');
  await knex.raw('drop trigger runs_roll_up_first_token on runs');
  await knex.raw('drop trigger traces_roll_up on traces');
  await knex.raw('drop function engram_roll_up_first_token, engram_count_first_token, engram_roll_up_trace, engram_count_trace');
  await knex.schema.alterTable('steps', (t) => t.dropIndex(['organization_id', 'agent_id', 'created_at']));
  await knex.schema.alterTable('traces', (t) => t.dropIndex(['organization_id', 'agent_id', 'started_at']));
  await knex.schema.dropTable('model_usage_buckets');
  await knex.schema.dropTable('tool_metric_buckets');
  await knex.schema.dropTable('agent_activity_days');
  await knex.schema.dropTable('run_metric_buckets');
  await knex.raw('drop function engram_metric_bucket, engram_latency_bin, engram_add_tool_calls');
  await knex.schema.alterTable('traces', (t) => t.dropColumn('tool_calls'));
}
