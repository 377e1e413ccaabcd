import { TenantModel } from './base-model.js';
import type { IdentityHiddenKind } from './hidden.js';

export type IdentityType = 'org' | 'user' | 'other';

export type IdentityProperty =
  | { key: string; type: 'string'; value: string }
  | { key: string; type: 'number'; value: number }
  | { key: string; type: 'boolean'; value: boolean }
  | { key: string; type: 'json'; value: Record<string, unknown> };

/** Someone agents act for (a user, an organization): found by the caller's own `identifier_key`. */
export class Identity extends TenantModel {
  static override tableName = 'identities';
  static override jsonAttributes = ['properties'];
  declare id: string;
  declare projectId: string | null;
  declare identifierKey: string;
  declare name: string;
  declare identityType: IdentityType;
  declare properties: IdentityProperty[];
  /** Set on the identities the platform hides (a shared chat's visitor); see `hidden.ts`. */
  declare hiddenKind: IdentityHiddenKind | null;
}

export class IdentityAgent extends TenantModel {
  static override tableName = 'identity_agents';
  static override idColumn = ['identityId', 'agentId'];
  declare identityId: string;
  declare agentId: string;
}

export class IdentityBlock extends TenantModel {
  static override tableName = 'identity_blocks';
  static override idColumn = ['identityId', 'blockId'];
  declare identityId: string;
  declare blockId: string;
}
