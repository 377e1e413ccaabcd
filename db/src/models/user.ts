import { TenantModel } from './base-model.js';

export type Role = 'admin' | 'editor' | 'analyst' | 'custom';

export class User extends TenantModel {
  static override tableName = 'users';
  declare id: string;
  declare name: string;
  declare email: string | null;
  declare role: Role;
}
