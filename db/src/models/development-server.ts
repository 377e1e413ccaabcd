import { TenantModel } from './base-model.js';

/** A self-run agent server the console's ADE connects to. */
export class DevelopmentServer extends TenantModel {
  static override tableName = 'development_servers';
  declare id: string;
  declare name: string;
  declare url: string;
  declare passwordEnc: string | null;
}
