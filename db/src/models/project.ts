import { TenantModel } from './base-model.js';

export class Project extends TenantModel {
  static override tableName = 'projects';
  declare id: string;
  declare name: string;
  declare slug: string;
  declare isDefault: boolean;
}
