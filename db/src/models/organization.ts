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
}
