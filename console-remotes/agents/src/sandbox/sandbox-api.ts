import type { PackageRequirement } from '../tools/tool-types.js';
import { segment, v1Json } from '../v1-request.js';

export type SandboxType = 'local' | 'e2b' | 'modal';

/** The local sandbox's settings (`LocalSandboxConfig`); `timeout` is seconds per tool call. */
export type LocalSandboxSettings = {
  sandbox_dir?: string | null;
  use_venv?: boolean;
  venv_name?: string;
  pip_requirements?: PackageRequirement[];
  timeout?: number;
};

export type SandboxConfig = { id: string; type: SandboxType; config: Record<string, unknown>; updated_at: string };

/** A wire `SandboxEnvironmentVariable`: its value only ever masked. */
export type SandboxVariable = { id: string; key: string; value: string; description: string | null; sandbox_config_id: string };

/** The organization's sandbox configs: at most one of each type. */
export function listSandboxConfigs() {
  return v1Json<SandboxConfig[]>('/sandbox-config/');
}

/** The local config, created with its defaults when the organization has none yet. */
export function ensureLocalSandbox() {
  return v1Json<SandboxConfig>('/sandbox-config/local/default', { method: 'POST' });
}

export function createLocalSandbox(settings: LocalSandboxSettings) {
  return v1Json<SandboxConfig>('/sandbox-config/local', { method: 'POST', json: settings });
}

/** Changes the settings given; the others keep their values. */
export function updateSandboxConfig(configId: string, settings: LocalSandboxSettings) {
  return v1Json<SandboxConfig>(`/sandbox-config/${segment(configId)}`, { method: 'PATCH', json: { config: settings } });
}

/** Builds the local venv again with the config's pip requirements. */
export function recreateLocalVenv() {
  return v1Json<SandboxConfig>('/sandbox-config/local/recreate-venv', { method: 'POST' });
}

export function listSandboxVariables(configId: string) {
  return v1Json<SandboxVariable[]>(`/sandbox-config/${segment(configId)}/environment-variable`);
}

export function addSandboxVariable(configId: string, variable: { key: string; value: string; description?: string }) {
  return v1Json<SandboxVariable>(`/sandbox-config/${segment(configId)}/environment-variable`, { method: 'POST', json: variable });
}

export function setSandboxVariableValue(variableId: string, value: string) {
  return v1Json<SandboxVariable>(`/sandbox-config/environment-variable/${segment(variableId)}`, { method: 'PATCH', json: { value } });
}

export function deleteSandboxVariable(variableId: string) {
  return v1Json<null>(`/sandbox-config/environment-variable/${segment(variableId)}`, { method: 'DELETE' });
}
