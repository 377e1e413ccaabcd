import type { Knex } from 'knex';

/**
 * The organization `npm start` creates on its first start is the self-hoster's own: the operator may let it reach
 * what other organizations may not (ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION, loopback by default under `npm start`,
 * for a local model or MCP server). At most one organization is it, and it stays so after its admin is claimed.
 *
 * An install whose first start predates this gets the mark on that organization: the oldest one, still named as the
 * first start named it, with a platform admin (the first-start admin, or whoever claimed it) among its admins.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.boolean('first_start').notNullable().defaultTo(false);
  });
  await knex.raw('create unique index organizations_one_first_start on organizations ((true)) where first_start');
  await knex.raw(`
    update organizations set first_start = true
    where id = (select id from organizations order by created_at, id limit 1)
      and name = 'Default Organization'
      and exists (
        select 1 from organization_members m join users u on u.id = m.user_id
        where m.organization_id = organizations.id and m.role = 'admin' and 'platform_admin' = any(u.permissions)
      )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('first_start');
  });
}
