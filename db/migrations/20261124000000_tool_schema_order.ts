import type { Knex } from 'knex';

/**
 * Tool schemas as `json`, not `jsonb`: jsonb orders object keys by length and then bytes, so a Python
 * tool's parameters came back out of their declared order, which the model and the console's run form
 * both show. Nothing compares or indexes these columns, which is all jsonb would add.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table tools alter column json_schema type json using json_schema::json');
  await knex.raw('alter table tools alter column args_json_schema type json using args_json_schema::json');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table tools alter column json_schema type jsonb using json_schema::jsonb');
  await knex.raw('alter table tools alter column args_json_schema type jsonb using args_json_schema::jsonb');
}
