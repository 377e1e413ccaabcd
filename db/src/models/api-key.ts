import { TenantModel } from './base-model.js';

export class ApiKey extends TenantModel {
  static override tableName = 'api_keys';
  declare id: string;
  declare userId: string;
  declare name: string;
  declare keyHash: string;
  declare keyPrefix: string;
  declare lastUsedAt: Date | null;
}
