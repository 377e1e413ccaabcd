import { TenantModel } from './base-model.js';

/** A bring-your-own-key provider; keys are stored encrypted (see the providers service). */
export class Provider extends TenantModel {
  static override tableName = 'providers';
  declare id: string;
  declare name: string;
  declare providerType: string;
  declare providerCategory: string;
  declare apiKeyEnc: string | null;
  declare accessKeyEnc: string | null;
  declare baseUrl: string | null;
  declare region: string | null;
  declare apiVersion: string | null;
}
