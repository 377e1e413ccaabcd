import { z } from 'zod';

/** The wire `SandboxConfig`; `config` holds the settings of its type (local, E2B or Modal), as they were given. */
export const SandboxConfigResponse = z
  .object({
    id: z.string(),
    type: z.enum(['local', 'e2b', 'modal']),
    config: z.record(z.string(), z.unknown()),
    organization_id: z.string(),
    created_by_id: z.string().nullable(),
    last_updated_by_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'SandboxConfig' });

export type SandboxConfigWire = z.infer<typeof SandboxConfigResponse>;

/** The wire `SandboxEnvironmentVariable`: the value only ever masked, the sealed form never. */
export const SandboxVariableResponse = z
  .object({
    id: z.string(),
    key: z.string(),
    value: z.string(),
    description: z.string().nullable(),
    sandbox_config_id: z.string(),
    organization_id: z.string(),
    value_enc: z.null(),
    created_by_id: z.string().nullable(),
    last_updated_by_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'SandboxEnvironmentVariable' });

export type SandboxVariableWire = z.infer<typeof SandboxVariableResponse>;
