import { TenantModel } from './base-model.js';

export type Role = 'admin' | 'editor' | 'analyst' | 'custom';

/** A user's place in one organization: the role, and for `custom` the permissions granted one by one. */
export class OrganizationMember extends TenantModel {
  static override tableName = 'organization_members';
  static override idColumn = ['organizationId', 'userId'];
  declare userId: string;
  declare role: Role;
  declare customPermissions: string[];
}
