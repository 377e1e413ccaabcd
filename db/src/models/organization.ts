import type { Knex } from 'knex';
import { BaseModel } from './base-model.js';

export type BillingTier = 'free' | 'pro' | 'scale' | 'enterprise';

export class Organization extends BaseModel {
  static override tableName = 'organizations';
  declare id: string;
  declare name: string;
  declare billingTier: BillingTier;
  declare isAdmin: boolean;
  /** Set while a platform admin has banned the organization: every credential of it is refused. */
  declare bannedAt: Date | null;
  declare enabledCloudAt: Date | null;
  /** The organization `npm start` created on its first start (at most one): operators may let it reach more. */
  declare firstStart: boolean;

  /** The id of the first-start organization, or null where none was created (a deployment started otherwise). */
  static async firstStartId(db: Knex): Promise<string | null> {
    const organization = await Organization.query(db).findOne({ firstStart: true });
    return organization?.id ?? null;
  }
}
