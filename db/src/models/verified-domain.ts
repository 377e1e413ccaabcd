import { TenantModel } from './base-model.js';
import type { Role } from './organization-member.js';

/** An email domain proven to belong to an organization (registered by platform administrators). */
export class VerifiedDomain extends TenantModel {
  static override tableName = 'verified_domains';
  declare id: string;
  declare domain: string;
}

/** New accounts on a verified domain join the organization with this role. */
export class InviteRule extends TenantModel {
  static override tableName = 'invite_rules';
  declare id: string;
  declare verifiedDomainId: string;
  declare role: Role;
}
