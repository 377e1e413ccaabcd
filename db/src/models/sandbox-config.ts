import { TenantModel } from './base-model.js';

export type SandboxType = 'local' | 'e2b' | 'modal';

export type SandboxPipRequirement = { name: string; version?: string | null };

/** Settings of the local sandbox (`LocalSandboxConfig`); `timeout` (seconds) is Engram's addition. */
export type LocalSandboxSettings = {
  sandbox_dir?: string | null;
  use_venv?: boolean;
  /** Tools of this config reach the network; without it their sandbox has none. */
  allow_network?: boolean;
  venv_name?: string;
  pip_requirements?: SandboxPipRequirement[];
  timeout?: number;
};

export type E2BSandboxSettings = { timeout?: number; template?: string | null; pip_requirements?: string[] | null };

export type ModalSandboxSettings = {
  timeout?: number;
  pip_requirements?: string[] | null;
  npm_requirements?: string[] | null;
  language?: 'python' | 'typescript';
};

export type SandboxSettings = LocalSandboxSettings | E2BSandboxSettings | ModalSandboxSettings;

/** How an organization's tools run for one sandbox type; at most one per type and organization. */
export class SandboxConfig extends TenantModel {
  static override tableName = 'sandbox_configs';
  static override jsonAttributes = ['config'];
  declare id: string;
  declare type: SandboxType;
  declare config: SandboxSettings;
  declare createdById: string | null;
  declare lastUpdatedById: string | null;
}

/** A variable every tool of the sandbox config runs with; the value is stored sealed. */
export class SandboxEnvironmentVariable extends TenantModel {
  static override tableName = 'sandbox_environment_variables';
  declare id: string;
  declare sandboxConfigId: string;
  declare key: string;
  declare valueEnc: string;
  declare description: string | null;
  declare createdById: string | null;
  declare lastUpdatedById: string | null;
}
