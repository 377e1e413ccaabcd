import { z } from 'zod';
import type { SandboxSettings, SandboxType } from '@engram/db';
import { isValidVenvName } from '@engram/integrations/sandbox';
import { DEFAULT_LOCAL_TIMEOUT_SECONDS } from '@engram/integrations/tools';

/** A pip requirement as the public API writes it; names and versions are what pip accepts, never options. */
export const PipRequirementSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\[[A-Za-z0-9._,-]+\])?$/, 'not a valid pip package name'),
  version: z
    .string()
    .regex(/^[A-Za-z0-9.*+!_-]+$/, 'not a valid package version')
    .nullish(),
});

/** Variable names a process environment can hold; values without NUL bytes, which no environment can. */
export const EnvironmentVariableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name is letters, digits and _');
export const EnvironmentVariableValue = z.string().refine((value) => !value.includes('\0'), 'a value cannot contain NUL bytes');

const timeout = z.number().int().min(1).max(3600);

/** `LocalSandboxConfig`; `timeout` (seconds per tool call) and `allow_network` (tools reach the network) are Engram's additions. */
export const LocalSandboxSettingsSchema = z.strictObject({
  // Kept for the public shape only: every local call runs in a fresh temporary directory of its own.
  sandbox_dir: z.string().nullish(),
  use_venv: z.boolean().optional(),
  venv_name: z.string().refine(isValidVenvName, 'a venv name is a plain directory name').optional(),
  pip_requirements: z.array(PipRequirementSchema).optional(),
  timeout: timeout.optional(),
  allow_network: z.boolean().optional(),
});

export const E2BSandboxSettingsSchema = z.strictObject({
  timeout: timeout.optional(),
  template: z.string().nullish(),
  pip_requirements: z.array(z.string()).nullish(),
});

export const ModalSandboxSettingsSchema = z.strictObject({
  timeout: timeout.optional(),
  pip_requirements: z.array(z.string()).nullish(),
  npm_requirements: z.array(z.string()).nullish(),
  language: z.enum(['python', 'typescript']).optional(),
});

export const SETTINGS_SCHEMAS: Record<SandboxType, z.ZodType<SandboxSettings>> = {
  local: LocalSandboxSettingsSchema,
  e2b: E2BSandboxSettingsSchema,
  modal: ModalSandboxSettingsSchema,
};

export const DEFAULT_SETTINGS: Record<'local' | 'e2b', SandboxSettings> = {
  local: { sandbox_dir: null, use_venv: false, venv_name: 'venv', pip_requirements: [], timeout: DEFAULT_LOCAL_TIMEOUT_SECONDS },
  e2b: { timeout: 300, template: null, pip_requirements: null },
};

const LOCAL_ONLY = ['sandbox_dir', 'use_venv', 'venv_name', 'allow_network'];
const MODAL_ONLY = ['language', 'npm_requirements'];

/**
 * Which config type an untyped `config` object is: the create body takes the union of the three shapes
 * without a type field, so the type follows from the keys only one shape has. `pip_requirements` of
 * strings is the E2B shape, of objects the local one; a bare `timeout` is E2B's (local has none upstream).
 */
export function sandboxTypeOf(config: Record<string, unknown>): SandboxType {
  const keys = Object.keys(config);
  if (keys.some((key) => LOCAL_ONLY.includes(key))) return 'local';
  if ('template' in config) return 'e2b';
  if (keys.some((key) => MODAL_ONLY.includes(key))) return 'modal';
  const [firstRequirement] = Array.isArray(config.pip_requirements) ? (config.pip_requirements as unknown[]) : [];
  if (typeof firstRequirement === 'string') return 'e2b';
  if (firstRequirement === undefined && 'timeout' in config) return 'e2b';
  return 'local';
}
