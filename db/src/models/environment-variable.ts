import { TenantModel } from './base-model.js';

/** An organization-wide variable for tool execution; the value is sealed with the secret box. */
export class EnvironmentVariable extends TenantModel {
  static override tableName = 'organization_environment_variables';
  declare id: string;
  declare key: string;
  declare valueEnc: string;
}
