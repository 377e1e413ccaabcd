import { maskSecret, type SandboxConfig } from '@engram/db';
import type { SandboxVariableView } from './sandbox-config-service.js';
import type { SandboxConfigWire, SandboxVariableWire } from '../../contracts/v1/sandbox-config.js';

/** The wire `SandboxConfig`. */
export function sandboxConfigToWire(config: SandboxConfig): SandboxConfigWire {
  return {
    id: config.id,
    type: config.type,
    config: config.config,
    organization_id: config.organizationId,
    created_by_id: config.createdById,
    last_updated_by_id: config.lastUpdatedById,
    created_at: config.createdAt.toISOString(),
    updated_at: config.updatedAt.toISOString(),
  };
}

/** The wire `SandboxEnvironmentVariable`: the value only ever masked, the sealed form never. */
export function sandboxVariableToWire({ variable, value }: SandboxVariableView): SandboxVariableWire {
  return {
    id: variable.id,
    key: variable.key,
    value: maskSecret(value),
    description: variable.description,
    sandbox_config_id: variable.sandboxConfigId,
    organization_id: variable.organizationId,
    value_enc: null,
    created_by_id: variable.createdById,
    last_updated_by_id: variable.lastUpdatedById,
    created_at: variable.createdAt.toISOString(),
    updated_at: variable.updatedAt.toISOString(),
  };
}
