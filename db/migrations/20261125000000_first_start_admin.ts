import type { Knex } from 'knex';

/**
 * The admin `npm start` creates on its first start has no email or password, so nobody could sign in
 * as it. It is marked claimable: the first account to sign up takes it over (and with it the default
 * organization and the printed API key). At most one user is ever claimable.
 *
 * An install whose first start predates this, and where nobody has signed up yet (its only user is
 * that passwordless admin), gets the same chance.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.boolean('claimable_by_first_sign_up').notNullable().defaultTo(false);
  });
  await knex.raw('create unique index users_one_claimable on users ((true)) where claimable_by_first_sign_up');
  await knex.raw(`
    update users set claimable_by_first_sign_up = true
    where email is null and password_hash is null and (select count(*) from users) = 1`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('claimable_by_first_sign_up');
  });
}
