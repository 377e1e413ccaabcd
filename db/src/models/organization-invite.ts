import { TenantModel } from './base-model.js';
import type { Role } from './organization-member.js';

export class OrganizationInvite extends TenantModel {
  static override tableName = 'organization_invites';
  declare id: string;
  declare email: string;
  declare role: Role;
  declare inviteCode: string;
  declare invitedById: string | null;
  declare expiresAt: Date;
}
