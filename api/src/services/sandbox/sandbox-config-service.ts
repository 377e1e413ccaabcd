import { randomUUID } from 'node:crypto';
import {
  SandboxConfig,
  SandboxEnvironmentVariable,
  type Database,
  type LocalSandboxSettings,
  type SandboxSettings,
  type SandboxType,
  type SecretBox,
} from '@engram/db';
import { VenvSetupError, type VenvManager } from '@engram/integrations/sandbox';
import { UniqueViolationError } from 'objection';
import { BadRequestError, ConflictError, NotFoundError, UnprocessableError, UpstreamError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';
import { DEFAULT_SETTINGS, SETTINGS_SCHEMAS } from './sandbox-settings.js';

// The public API's prefixes (`sandbox-`, `sandbox-env-`), which db/src/ids.ts does not list.
const sandboxConfigId = () => `sandbox-${randomUUID()}`;
const sandboxVariableId = () => `sandbox-env-${randomUUID()}`;

/** A stored variable with its value opened, for masking on the wire. */
export type SandboxVariableView = { variable: SandboxEnvironmentVariable; value: string };

export type SandboxVariableInput = { key: string; value: string; description?: string | null | undefined };

export type SandboxConfigServiceDeps = { db: Database; secrets: SecretBox; venvs: VenvManager };

/** Sandbox configs (one per type and organization) and their environment variables, sealed at rest. */
export function createSandboxConfigService(deps: SandboxConfigServiceDeps) {
  const { db, secrets, venvs } = deps;

  async function find(ctx: RequestContext, configId: string): Promise<SandboxConfig> {
    const config = await SandboxConfig.query(db).forOrg(ctx.organizationId).findById(configId);
    if (!config) throw new NotFoundError('Sandbox config');
    return config;
  }

  async function findVariable(ctx: RequestContext, variableId: string): Promise<SandboxEnvironmentVariable> {
    const variable = await SandboxEnvironmentVariable.query(db).forOrg(ctx.organizationId).findById(variableId);
    if (!variable) throw new NotFoundError('Sandbox environment variable');
    return variable;
  }

  const view = (variable: SandboxEnvironmentVariable): SandboxVariableView => ({ variable, value: secrets.decrypt(variable.valueEnc) });

  const duplicateKey = (key: string) => new ConflictError(`The sandbox config already has a variable named '${key}'`);

  function validSettings(type: SandboxType, settings: unknown): SandboxSettings {
    const parsed = SETTINGS_SCHEMAS[type].safeParse(settings);
    if (parsed.success) return parsed.data;
    const [issue] = parsed.error.issues;
    throw new UnprocessableError(['body', 'config', ...(issue?.path.map((part) => (typeof part === 'number' ? part : String(part))) ?? [])], issue?.message ?? 'Invalid config');
  }

  async function getOrCreateDefault(ctx: RequestContext, type: 'local' | 'e2b'): Promise<SandboxConfig> {
    await SandboxConfig.query(db)
      .insert({
        id: sandboxConfigId(),
        organizationId: ctx.organizationId,
        type,
        config: DEFAULT_SETTINGS[type],
        createdById: ctx.userId,
        lastUpdatedById: ctx.userId,
      })
      .onConflict(['organizationId', 'type'])
      .ignore();
    return (await SandboxConfig.query(db).forOrg(ctx.organizationId).findOne({ type }))!;
  }

  return {
    async list(ctx: RequestContext, filter: { sandboxType?: SandboxType | undefined }, page: PageRequest): Promise<SandboxConfig[]> {
      const query = SandboxConfig.query(db).forOrg(ctx.organizationId);
      if (filter.sandboxType !== undefined) query.where('sandbox_configs.type', filter.sandboxType);
      return keysetPage(query, page, { table: 'sandbox_configs' });
    },

    /** An organization has one config per type: creating one of a type it has replaces that config's settings. */
    async createOrReplace(ctx: RequestContext, type: SandboxType, settings: unknown): Promise<SandboxConfig> {
      const config = validSettings(type, settings);
      return SandboxConfig.query(db)
        .insert({ id: sandboxConfigId(), organizationId: ctx.organizationId, type, config, createdById: ctx.userId, lastUpdatedById: ctx.userId })
        .onConflict(['organizationId', 'type'])
        .merge(['config', 'lastUpdatedById', 'updatedAt'])
        .returning('*');
    },

    getOrCreateDefault,

    /** Changes the settings given and keeps the others. */
    async update(ctx: RequestContext, configId: string, settings: Record<string, unknown>): Promise<SandboxConfig> {
      const existing = await find(ctx, configId);
      const config = validSettings(existing.type, { ...existing.config, ...settings });
      return existing.$query(db).patchAndFetch({ config, lastUpdatedById: ctx.userId });
    },

    async delete(ctx: RequestContext, configId: string): Promise<void> {
      const deleted = await SandboxConfig.query(db).forOrg(ctx.organizationId).deleteById(configId);
      if (deleted === 0) throw new NotFoundError('Sandbox config');
    },

    /**
     * Deletes the local config's venv and builds it again with the config's pip_requirements. Without a
     * reachable package index pip fails within seconds, and so does this, saying so.
     */
    async recreateLocalVenv(ctx: RequestContext): Promise<SandboxConfig> {
      const config = await getOrCreateDefault(ctx, 'local');
      const settings = config.config as LocalSandboxSettings;
      try {
        await venvs.recreate(venvs.venvDir(ctx.organizationId, config.id, settings.venv_name ?? 'venv'), settings.pip_requirements ?? []);
      } catch (error) {
        if (!(error instanceof VenvSetupError)) throw error;
        if (error.kind === 'install_failed') throw new UpstreamError(error.message);
        if (error.kind === 'invalid_setting') throw new BadRequestError(error.message);
        throw error;
      }
      return config;
    },

    async listVariables(ctx: RequestContext, configId: string, page: PageRequest): Promise<SandboxVariableView[]> {
      await find(ctx, configId);
      const query = SandboxEnvironmentVariable.query(db).forOrg(ctx.organizationId).where({ sandboxConfigId: configId });
      return (await keysetPage(query, page, { table: 'sandbox_environment_variables' })).map(view);
    },

    async createVariable(ctx: RequestContext, configId: string, input: SandboxVariableInput): Promise<SandboxVariableView> {
      await find(ctx, configId);
      try {
        const variable = await SandboxEnvironmentVariable.query(db)
          .insert({
            id: sandboxVariableId(),
            organizationId: ctx.organizationId,
            sandboxConfigId: configId,
            key: input.key,
            valueEnc: secrets.encrypt(input.value),
            description: input.description ?? null,
            createdById: ctx.userId,
            lastUpdatedById: ctx.userId,
          })
          .returning('*');
        return view(variable);
      } catch (error) {
        if (error instanceof UniqueViolationError) throw duplicateKey(input.key);
        throw error;
      }
    },

    async updateVariable(ctx: RequestContext, variableId: string, input: Partial<SandboxVariableInput>): Promise<SandboxVariableView> {
      const variable = await findVariable(ctx, variableId);
      try {
        const updated = await variable.$query(db).patchAndFetch({
          ...(input.key !== undefined ? { key: input.key } : {}),
          ...(input.value !== undefined ? { valueEnc: secrets.encrypt(input.value) } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          lastUpdatedById: ctx.userId,
        });
        return view(updated);
      } catch (error) {
        if (error instanceof UniqueViolationError) throw duplicateKey(input.key ?? variable.key);
        throw error;
      }
    },

    async deleteVariable(ctx: RequestContext, variableId: string): Promise<void> {
      const deleted = await SandboxEnvironmentVariable.query(db).forOrg(ctx.organizationId).deleteById(variableId);
      if (deleted === 0) throw new NotFoundError('Sandbox environment variable');
    },
  };
}

export type SandboxConfigService = ReturnType<typeof createSandboxConfigService>;
