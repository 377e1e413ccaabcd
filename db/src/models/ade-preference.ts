import { TenantModel } from './base-model.js';

/** How one user laid out the agent development environment for one agent. */
export class AdePreference extends TenantModel {
  static override tableName = 'ade_preferences';
  static override idColumn = ['userId', 'agentId'];
  static override jsonAttributes = ['displayConfig'];
  declare userId: string;
  declare agentId: string;
  declare displayConfig: Record<string, unknown>;
}
