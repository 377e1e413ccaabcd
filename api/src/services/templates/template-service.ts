import {
  consoleTemplateNameProblem,
  fillPlaceholders,
  memoryVariablesOf,
  missingVariablesMessage,
  parseTemplateVersion,
  resolveMemoryVariables,
  sameJson,
  templateNameProblem,
  type BlockReconciliationStrategy,
  type TemplateSnapshot,
} from '@engram/core/templates/snapshot';
import {
  Agent,
  AgentTemplate,
  AgentTemplateVersion,
  Project,
  TemplateDeployment,
  TemplateMigration,
  TemplateMigrationAgent,
  newId,
  type Database,
  VISIBLE_AGENT,
} from '@engram/db';
import type { TemplateMigrationClient } from '@engram/temporal/client';
import { ConflictError, NotFoundError, UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { AgentFileService } from '../agent-files/agent-file-service.js';
import type { AgentService, InitialMessageInput } from '../agents/agent-service.js';
import { EVERY_RELATIONSHIP } from '../agents/agent-views.js';
import type { OrganizationService } from '../tenancy/organizations.js';
import type { SimulatedAgentService } from './simulated-agent-service.js';
import { agentInputOf, snapshotOfAgent, toolVariableValues } from './snapshots.js';
import type { TierLimitGuard } from '../tenancy/tier-limits.js';
import type { MigrationView, TemplateView, VersionRef } from './types.js';

export type TemplateServiceDeps = {
  db: Database;
  agents: AgentService;
  agentFiles: Pick<AgentFileService, 'importFile'>;
  organizations: Pick<OrganizationService, 'resolveProject'>;
  migrations: TemplateMigrationClient;
  /** Edits made on a template's simulated agent are taken into the working state first; changes of it reach the agent. */
  simulatedAgents: Pick<SimulatedAgentService, 'pull' | 'push' | 'removeFor'>;
  /** The tier's template limit, enforced while billing is on. */
  limits: Pick<TierLimitGuard, 'assertWithinLimit'>;
};

export type TemplateSource = { type: 'agent'; agentId: string } | { type: 'agent_file'; agentFile: Record<string, unknown>; updateExistingTools: boolean };

/** Which name rules apply: the public API's single message, or the console's length and character messages. */
export type NameRules = 'v1' | 'console';

export type CreateAgentsInput = {
  agentName?: string | undefined;
  tags?: string[] | undefined;
  /** Identities the agents are linked to, besides the template's own. */
  identityIds?: string[] | undefined;
  memoryVariables?: Record<string, string> | undefined;
  /** Values of the template's tool variables: they become the agents' tool environment variables. */
  toolVariables?: Record<string, string> | undefined;
  initialMessageSequence?: InitialMessageInput[] | undefined;
};

export type MigrationOptions = {
  strategy: BlockReconciliationStrategy;
  preserveCoreMemories: boolean;
  /** Values of the version's memory variables for the agents that have none of their own. */
  memoryVariables: Record<string, string>;
};

/** What moving a template's agents to a version needs: how many move, and the variables some of them lack a value for. */
export type MigrationRequirements = { agents: number; missing: Array<{ key: string; agents: number }> };

export type SaveInput = { message?: string | undefined; migrateAgents?: MigrationOptions | undefined };

/** Agents of one deployment created at once: each is a short transaction of its own, so a few overlap well. */
const CONCURRENT_CREATIONS = 4;

/** Migrations listed per page (spec 000 §9). */
export const MIGRATIONS_PER_PAGE = 50;

function assertName(name: string, rules: NameRules, loc: Array<string | number>): void {
  const problem = rules === 'v1' ? templateNameProblem(name) : consoleTemplateNameProblem(name);
  if (problem) throw new UnprocessableError(loc, problem);
}

function randomTemplateName(): string {
  return `template-${Math.random().toString(36).slice(2, 10)}`;
}

export function createTemplateService(deps: TemplateServiceDeps) {
  const { db } = deps;

  /** A new template, within the tier's template limit. */
  async function insertTemplate(ctx: RequestContext, row: Pick<AgentTemplate, 'projectId' | 'name' | 'description' | 'workingSnapshot'>): Promise<AgentTemplate> {
    return db.transaction(async (trx) => {
      await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'templates');
      return AgentTemplate.query(trx).insert({
        id: newId('template'),
        organizationId: ctx.organizationId,
        ...row,
        latestVersion: 0,
        entityId: newId('templateEntity'),
      });
    });
  }

  async function viewOf(ctx: RequestContext, template: AgentTemplate): Promise<TemplateView> {
    const project = await Project.query(db).forOrg(ctx.organizationId).findById(template.projectId);
    const latest = await latestVersionOf(ctx, template);
    return {
      template,
      projectSlug: project?.slug ?? '',
      latestVersionId: latest?.id ?? null,
      hasUnsavedChanges: !latest || !sameJson(latest.snapshot, template.workingSnapshot),
    };
  }

  async function latestVersionOf(ctx: RequestContext, template: AgentTemplate): Promise<AgentTemplateVersion | undefined> {
    return AgentTemplateVersion.query(db).forOrg(ctx.organizationId).findOne({ templateId: template.id, version: template.latestVersion });
  }

  async function matchesLatest(ctx: RequestContext, template: AgentTemplate): Promise<boolean> {
    const latest = await latestVersionOf(ctx, template);
    return latest !== undefined && sameJson(latest.snapshot, template.workingSnapshot);
  }

  async function findByName(ctx: RequestContext, name: string): Promise<AgentTemplate> {
    const template = await AgentTemplate.query(db).forOrg(ctx.organizationId).findOne({ name });
    if (!template) throw new NotFoundError('Template');
    return template;
  }

  async function findById(ctx: RequestContext, id: string): Promise<AgentTemplate> {
    const template = await AgentTemplate.query(db).forOrg(ctx.organizationId).findById(id);
    if (!template) throw new NotFoundError('Template');
    return template;
  }

  async function assertNameFree(ctx: RequestContext, name: string): Promise<void> {
    const taken = await AgentTemplate.query(db).forOrg(ctx.organizationId).findOne({ name });
    if (taken) throw new ConflictError(`A template named '${name}' already exists`);
  }

  /** The version a reference names: a number, the newest saved one (`latest`), or the working state (`dev`). */
  async function resolveVersion(ctx: RequestContext, ref: string): Promise<VersionRef> {
    const parsed = parseTemplateVersion(ref);
    if (!parsed) throw new NotFoundError('Template version');
    const template = await findByName(ctx, parsed.templateName);
    if (parsed.version === 'dev') return { template, version: null, snapshot: template.workingSnapshot };
    const number = parsed.version === 'latest' ? template.latestVersion : parsed.version;
    const version = await AgentTemplateVersion.query(db).forOrg(ctx.organizationId).findOne({ templateId: template.id, version: number });
    if (!version) throw new NotFoundError('Template version');
    return { template, version, snapshot: version.snapshot };
  }

  async function snapshotOfSource(ctx: RequestContext, source: TemplateSource, projectId: string): Promise<TemplateSnapshot> {
    if (source.type === 'agent') return snapshotOfAgent(await deps.agents.get(ctx, source.agentId, EVERY_RELATIONSHIP));
    // The file is imported as an agent (its tools bound to the organization's), read back, and removed.
    const [agentId, ...others] = await deps.agentFiles.importFile(ctx, Buffer.from(JSON.stringify(source.agentFile)), {
      appendCopySuffix: false,
      overrideExistingTools: source.updateExistingTools,
      stripMessages: true,
      projectId,
      secrets: {},
    });
    if (!agentId) throw new UnprocessableError(['body', 'agent_file'], 'The agent file holds no agent');
    try {
      return snapshotOfAgent(await deps.agents.get(ctx, agentId, EVERY_RELATIONSHIP));
    } finally {
      for (const id of [agentId, ...others]) await deps.agents.delete(ctx, id);
    }
  }

  /** Saves the working state as the next version; the template row is locked so two saves number apart. */
  async function saveVersion(ctx: RequestContext, templateId: string, message: string | null): Promise<AgentTemplateVersion> {
    return db.transaction(async (trx) => {
      const template = await AgentTemplate.query(trx).forOrg(ctx.organizationId).findById(templateId).forUpdate();
      if (!template) throw new NotFoundError('Template');
      const version = await AgentTemplateVersion.query(trx)
        .insert({
          id: newId('templateVersion'),
          organizationId: ctx.organizationId,
          templateId,
          version: template.latestVersion + 1,
          message,
          snapshot: template.workingSnapshot,
        })
        .returning('*');
      await template.$query(trx).patch({ latestVersion: version.version });
      return version;
    });
  }

  async function startMigration(ctx: RequestContext, template: AgentTemplate, version: AgentTemplateVersion, options: MigrationOptions) {
    const migration = await TemplateMigration.query(db).insert({
      id: newId('templateMigration'),
      organizationId: ctx.organizationId,
      templateId: template.id,
      toVersionId: version.id,
      status: 'running',
      blockReconciliationStrategy: options.strategy,
      preserveCoreMemories: options.preserveCoreMemories,
      memoryVariables: options.memoryVariables,
      abortRequested: false,
      startedAt: new Date(),
    });
    await deps.migrations.start({ organizationId: ctx.organizationId, migrationId: migration.id });
    return migration;
  }

  async function migrationView(ctx: RequestContext, migration: TemplateMigration): Promise<MigrationView> {
    const counts = (await TemplateMigrationAgent.query(db)
      .forOrg(ctx.organizationId)
      .where({ migrationId: migration.id })
      .groupBy('status')
      .select('status')
      .count('* as count')) as unknown as Array<{ status: string; count: string }>;
    const byStatus = Object.fromEntries(counts.map((row) => [row.status, Number(row.count)]));
    const failures = await TemplateMigrationAgent.query(db)
      .forOrg(ctx.organizationId)
      .where({ migrationId: migration.id, status: 'failed' })
      .orderBy('agentId')
      .limit(100);
    const template = await AgentTemplate.query(db).forOrg(ctx.organizationId).findById(migration.templateId);
    const version = await AgentTemplateVersion.query(db).forOrg(ctx.organizationId).findById(migration.toVersionId);
    return {
      migration,
      workflowId: deps.migrations.workflowId(migration.id),
      templateVersion: `${template?.name ?? ''}:${version?.version ?? ''}`,
      total: Object.values(byStatus).reduce((sum, count) => sum + count, 0),
      migrated: byStatus.migrated ?? 0,
      failed: byStatus.failed ?? 0,
      untouched: byStatus.untouched ?? 0,
      failures: failures.map((row) => ({ agentId: row.agentId, reason: row.failureReason ?? '' })),
    };
  }

  /**
   * Changes a template's working state: edits made on its simulated agent are taken in first (so none is lost),
   * the change is written with the template row locked, and the simulated agent is brought to the result.
   */
  async function editWorkingState(ctx: RequestContext, templateId: string, edit: (working: TemplateSnapshot) => TemplateSnapshot): Promise<void> {
    await deps.simulatedAgents.pull(ctx, templateId);
    await db.transaction(async (trx) => {
      const template = await AgentTemplate.query(trx).forOrg(ctx.organizationId).findById(templateId).forUpdate();
      if (!template) throw new NotFoundError('Template');
      await template.$query(trx).patch({ workingSnapshot: edit(template.workingSnapshot) });
    });
    await deps.simulatedAgents.push(ctx, templateId);
  }

  /** The memory variables an agent made from the version gets; a missing one without a default is a 422 naming it. */
  function variablesFor(ref: Pick<VersionRef, 'snapshot'>, input: Pick<CreateAgentsInput, 'memoryVariables'>): Record<string, string> {
    const { values, missing } = resolveMemoryVariables(memoryVariablesOf(ref.snapshot), input.memoryVariables ?? {});
    if (missing.length > 0) throw new UnprocessableError(['body', 'memory_variables'], missingVariablesMessage(missing));
    return values;
  }

  /**
   * The template's agents a migration to `snapshot` would move (those not on `versionId` already), and the variables
   * without a default that some of them have no value for, neither their own nor one of `given`.
   */
  async function migrationRequirements(
    ctx: RequestContext,
    template: AgentTemplate,
    snapshot: TemplateSnapshot,
    versionId: string | null,
    given: Record<string, string>,
  ): Promise<MigrationRequirements> {
    const query = Agent.query(db).forOrg(ctx.organizationId).where('agents.template_id', template.id).select('id', 'memoryVariables');
    if (versionId) query.where((scope) => void scope.whereNull('agents.template_version_id').orWhereNot('agents.template_version_id', versionId));
    const agents = await query;
    const variables = memoryVariablesOf(snapshot);
    const lacking = new Map<string, number>();
    for (const agent of agents) {
      for (const key of resolveMemoryVariables(variables, { ...given, ...agent.memoryVariables }).missing) lacking.set(key, (lacking.get(key) ?? 0) + 1);
    }
    return { agents: agents.length, missing: [...lacking].map(([key, count]) => ({ key, agents: count })) };
  }

  /** Refuses a migration some agent could not take, before anything is saved or started, naming what is missing. */
  async function assertMigratable(
    ctx: RequestContext,
    template: AgentTemplate,
    snapshot: TemplateSnapshot,
    versionId: string | null,
    options: MigrationOptions,
  ): Promise<void> {
    const { missing } = await migrationRequirements(ctx, template, snapshot, versionId, options.memoryVariables);
    if (missing.length === 0) return;
    const lacking = Math.max(...missing.map((variable) => variable.agents));
    throw new UnprocessableError(
      ['body', 'memory_variables'],
      `${missingVariablesMessage(missing.map((variable) => variable.key))}. ${lacking} of the template's agents ${lacking === 1 ? 'has' : 'have'} no value of ${lacking === 1 ? 'its' : 'their'} own: give the migration one`,
    );
  }

  /**
   * The names of a deployment's agents: the given name for one agent, `name-1` … `name-N` for several (none
   * generated when no name is given). A name one of the project's agents already has is refused before any is made.
   */
  async function deploymentNames(ctx: RequestContext, ref: VersionRef, agentName: string | undefined, count: number): Promise<Array<string | undefined>> {
    if (!agentName) return Array.from({ length: count }, () => undefined);
    const names = count === 1 ? [agentName] : Array.from({ length: count }, (_, index) => `${agentName}-${index + 1}`);
    const taken = await Agent.query(db)
      .forOrg(ctx.organizationId)
      .whereRaw(VISIBLE_AGENT)
      .where('agents.project_id', ref.template.projectId)
      .whereIn('agents.name', names)
      .orderBy('agents.name')
      .select('agents.name');
    if (taken.length > 0) {
      throw new ConflictError(
        `An agent named '${taken[0]!.name}' already exists in this project: choose another name${count > 1 ? ` (the agents are named ${names[0]} to ${names.at(-1)})` : ''}`,
      );
    }
    return names;
  }

  async function createAgentFrom(
    ctx: RequestContext,
    ref: VersionRef,
    input: CreateAgentsInput,
    deploymentId: string | null,
  ): Promise<string> {
    const values = variablesFor(ref, input);
    const fill = (text: string) => fillPlaceholders(text, values);
    const base = agentInputOf(ref.snapshot, fill);
    const agent = await deps.agents.create(ctx, {
      ...base,
      ...(input.agentName ? { name: input.agentName } : {}),
      tags: [...new Set([...(base.tags ?? []), ...(input.tags ?? [])])],
      project_id: ref.template.projectId,
      identity_ids: [...new Set([...ref.snapshot.identityIds, ...(input.identityIds ?? [])])],
      tool_exec_environment_variables: toolVariableValues(ref.snapshot.toolVariables, input.toolVariables ?? {}),
      ...(input.initialMessageSequence ? { initial_message_sequence: input.initialMessageSequence } : {}),
      templateOrigin: {
        templateId: ref.template.id,
        templateVersionId: ref.version?.id ?? null,
        deploymentId,
        entityId: ref.template.entityId,
        memoryVariables: values,
      },
    });
    return agent.agent.id;
  }

  return {
    resolveVersion,

    /**
     * A template of an agent or an agent file. The public API saves it as version 1 at once (its answer names the
     * latest version); the console leaves the first save to the editor (create, try it, save a version, deploy).
     */
    async create(
      ctx: RequestContext,
      input: {
        source: TemplateSource;
        name?: string | undefined;
        description?: string | undefined;
        projectId?: string | undefined;
        saveFirstVersion: boolean;
      },
      rules: NameRules,
    ): Promise<TemplateView> {
      const name = input.name ?? randomTemplateName();
      assertName(name, rules, ['body', 'name']);
      await assertNameFree(ctx, name);
      const projectId = await deps.organizations.resolveProject(ctx.organizationId, input.projectId ? { id: input.projectId } : ctx.project);
      const snapshot = await snapshotOfSource(ctx, input.source, projectId);
      const template = await insertTemplate(ctx, { projectId, name, description: input.description ?? null, workingSnapshot: snapshot });
      if (input.saveFirstVersion) await saveVersion(ctx, template.id, 'Initial version');
      return viewOf(ctx, await findById(ctx, template.id));
    },

    /** A template from an uploaded agent file (the console's import), with the console's name rules. */
    async importAgentFile(
      ctx: RequestContext,
      file: Buffer,
      input: { name: string; description?: string | undefined; projectId?: string | undefined },
    ): Promise<TemplateView> {
      let agentFile: unknown;
      try {
        agentFile = JSON.parse(file.toString('utf8'));
      } catch {
        throw new UnprocessableError(['body', 'file'], 'The agent file is not valid JSON');
      }
      if (!agentFile || typeof agentFile !== 'object' || Array.isArray(agentFile)) {
        throw new UnprocessableError(['body', 'file'], 'The agent file must be a JSON object');
      }
      return this.create(
        ctx,
        {
          source: { type: 'agent_file', agentFile: agentFile as Record<string, unknown>, updateExistingTools: false },
          name: input.name,
          description: input.description,
          projectId: input.projectId,
          saveFirstVersion: false,
        },
        'console',
      );
    },

    /** A template of an agent (`POST /v1/agents` with `template: true`), named after it. */
    async createFromAgent(ctx: RequestContext, agentId: string): Promise<TemplateView> {
      const agent = await deps.agents.get(ctx, agentId, new Set());
      const base = agent.agent.name.replace(/[^A-Za-z0-9_-]+/g, '-');
      let name = base;
      for (let suffix = 2; await AgentTemplate.query(db).forOrg(ctx.organizationId).findOne({ name }); suffix++) name = `${base}-${suffix}`;
      return this.create(ctx, { source: { type: 'agent', agentId }, name, saveFirstVersion: true }, 'v1');
    },

    async get(ctx: RequestContext, id: string): Promise<TemplateView> {
      return viewOf(ctx, await findById(ctx, id));
    },

    async getByName(ctx: RequestContext, name: string): Promise<TemplateView> {
      return viewOf(ctx, await findByName(ctx, name));
    },

    /** The template whose agent entity this is, or undefined (a template has one agent entity). */
    async findEntity(ctx: RequestContext, templateId: string, entityId: string): Promise<TemplateView | undefined> {
      const template = await AgentTemplate.query(db).forOrg(ctx.organizationId).findById(templateId);
      return template && template.entityId === entityId ? viewOf(ctx, template) : undefined;
    },

    /** A saved version with its template (a deployed template, in the console's words). */
    async getVersion(ctx: RequestContext, versionId: string): Promise<{ template: AgentTemplate; version: AgentTemplateVersion }> {
      const version = await AgentTemplateVersion.query(db).forOrg(ctx.organizationId).findById(versionId);
      if (!version) throw new NotFoundError('Deployed template');
      return { template: await findById(ctx, version.templateId), version };
    },

    async list(
      ctx: RequestContext,
      query: { search?: string | undefined; projectId?: string | undefined; offset: number; limit: number },
    ): Promise<{ templates: TemplateView[]; hasNextPage: boolean }> {
      const rows = AgentTemplate.query(db).forOrg(ctx.organizationId);
      if (query.projectId) rows.where({ projectId: query.projectId });
      if (query.search) rows.where('name', 'ilike', `%${query.search.replace(/[\\%_]/g, '\\$&')}%`);
      const page = await rows.orderBy([{ column: 'updatedAt', order: 'desc' }, { column: 'id' }]).offset(query.offset).limit(query.limit + 1);
      const templates = [];
      for (const template of page.slice(0, query.limit)) templates.push(await viewOf(ctx, template));
      return { templates, hasNextPage: page.length > query.limit };
    },

    /** Replaces the working state from an agent file, saving unsaved changes as a version first when asked. */
    async updateFromAgentFile(
      ctx: RequestContext,
      name: string,
      input: { agentFile: Record<string, unknown>; saveExistingChanges: boolean; updateExistingTools: boolean },
    ): Promise<void> {
      const template = await findByName(ctx, name);
      await deps.simulatedAgents.pull(ctx, template.id);
      if (input.saveExistingChanges && !(await matchesLatest(ctx, await findById(ctx, template.id)))) {
        await saveVersion(ctx, template.id, 'Saved before an agent file update');
      }
      const snapshot = await snapshotOfSource(
        ctx,
        { type: 'agent_file', agentFile: input.agentFile, updateExistingTools: input.updateExistingTools },
        template.projectId,
      );
      await editWorkingState(ctx, template.id, () => snapshot);
    },

    /** Changes the working state (the console editor); saving makes it a version. */
    async updateWorkingState(
      ctx: RequestContext,
      id: string,
      patch: Partial<TemplateSnapshot> | ((working: TemplateSnapshot) => Partial<TemplateSnapshot>),
    ): Promise<TemplateView> {
      await editWorkingState(ctx, id, (working) => ({ ...working, ...(typeof patch === 'function' ? patch(working) : patch) }));
      return viewOf(ctx, await findById(ctx, id));
    },

    editWorkingState,

    async save(
      ctx: RequestContext,
      name: string,
      input: SaveInput,
    ): Promise<{ view: TemplateView; version: AgentTemplateVersion; migration: TemplateMigration | null }> {
      const template = await findByName(ctx, name);
      await deps.simulatedAgents.pull(ctx, template.id);
      if (input.migrateAgents) await assertMigratable(ctx, template, (await findById(ctx, template.id)).workingSnapshot, null, input.migrateAgents);
      const version = await saveVersion(ctx, template.id, input.message ?? null);
      const migration = input.migrateAgents ? await startMigration(ctx, template, version, input.migrateAgents) : null;
      return { view: await viewOf(ctx, await findById(ctx, template.id)), version, migration };
    },

    /** Makes a saved version the working state again; unsaved changes are saved as a version first. */
    async rollback(ctx: RequestContext, name: string, versionText: string): Promise<number> {
      if (versionText === 'dev' || versionText === 'current') {
        throw new UnprocessableError(['body', 'version'], "Cannot roll back to 'dev' or 'current'");
      }
      const template = await findByName(ctx, name);
      const ref = await resolveVersion(ctx, `${name}:${versionText}`);
      await deps.simulatedAgents.pull(ctx, template.id);
      if (!(await matchesLatest(ctx, await findById(ctx, template.id)))) await saveVersion(ctx, template.id, 'Saved before a rollback');
      await editWorkingState(ctx, template.id, () => ref.snapshot);
      return ref.version!.version;
    },

    /** Deletes a template with its versions; refused while agents were created from it, unless forced. */
    async delete(ctx: RequestContext, name: string, force: boolean): Promise<void> {
      const template = await findByName(ctx, name);
      const dependents = await Agent.query(db).forOrg(ctx.organizationId).where({ templateId: template.id }).resultSize();
      if (dependents > 0 && !force) {
        throw new ConflictError(
          `Template '${name}' still has ${dependents} agent${dependents === 1 ? '' : 's'} created from it; delete them first, or delete the template with force=true`,
        );
      }
      await deps.simulatedAgents.removeFor(ctx, template.id);
      await db.transaction(async (trx) => {
        await Agent.query(trx).forOrg(ctx.organizationId).where({ templateId: template.id }).patch({ templateId: null, templateVersionId: null });
        await AgentTemplate.query(trx).forOrg(ctx.organizationId).deleteById(template.id);
      });
    },

    async fork(ctx: RequestContext, id: string, newName: string | undefined, rules: NameRules): Promise<TemplateView> {
      const name = newName ?? `${(await findById(ctx, id)).name}-fork`;
      assertName(name, rules, ['body', 'name']);
      await assertNameFree(ctx, name);
      await deps.simulatedAgents.pull(ctx, id);
      const source = await findById(ctx, id);
      const template = await insertTemplate(ctx, { projectId: source.projectId, name, description: source.description, workingSnapshot: source.workingSnapshot });
      await saveVersion(ctx, template.id, `Forked from ${source.name}`);
      return viewOf(ctx, await findById(ctx, template.id));
    },

    async rename(ctx: RequestContext, id: string, name: string, rules: NameRules): Promise<TemplateView> {
      assertName(name, rules, ['body', 'name']);
      const template = await findById(ctx, id);
      if (template.name !== name) await assertNameFree(ctx, name);
      await template.$query(db).patch({ name });
      return viewOf(ctx, await findById(ctx, id));
    },

    async setDescription(ctx: RequestContext, id: string, description: string | null): Promise<TemplateView> {
      const template = await findById(ctx, id);
      await template.$query(db).patch({ description });
      return viewOf(ctx, await findById(ctx, id));
    },

    async listVersions(ctx: RequestContext, id: string, page: { offset: number; limit: number }) {
      const template = await findById(ctx, id);
      const versions = await AgentTemplateVersion.query(db)
        .forOrg(ctx.organizationId)
        .where({ templateId: template.id })
        .orderBy('version', 'desc')
        .offset(page.offset)
        .limit(page.limit + 1);
      return { template, versions: versions.slice(0, page.limit), hasNextPage: versions.length > page.limit };
    },

    /**
     * Creates `count` agents from a version in one deployment, a few at a time (each agent is its own
     * transaction); bad memory variables and a name already taken are refused before anything is created.
     */
    async createAgents(ctx: RequestContext, versionText: string, input: CreateAgentsInput, count = 1) {
      const ref = await resolveVersion(ctx, versionText);
      variablesFor(ref, input);
      const names = await deploymentNames(ctx, ref, input.agentName, count);
      const deployment = await TemplateDeployment.query(db).insert({
        id: newId('deployment'),
        organizationId: ctx.organizationId,
        projectId: ref.template.projectId,
        templateId: ref.template.id,
        templateVersionId: (ref.version ?? (await resolveVersion(ctx, `${ref.template.name}:latest`)).version!).id,
      });
      const agentIds: string[] = new Array<string>(count);
      let next = 0;
      // The first failure stops every lane before its next agent; it is what the caller gets.
      let failure: { error: unknown } | undefined;
      const lane = async () => {
        while (!failure && next < count) {
          const index = next++;
          try {
            agentIds[index] = await createAgentFrom(ctx, ref, { ...input, agentName: names[index] }, deployment.id);
          } catch (error) {
            failure ??= { error };
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENT_CREATIONS, count) }, lane));
      if (failure) throw failure.error;
      return { agentIds, deploymentId: deployment.id };
    },

    /**
     * Hidden agents made from a version, one for each of `names`, a few at a time: an evaluation's own agents, not
     * linked to the template (so migrations and deployments leave them alone) and not listed among the agents.
     * On a failure the ones made are deleted again.
     */
    async createHiddenAgents(ctx: RequestContext, versionText: string, input: { names: string[]; memoryVariables: Record<string, string> }): Promise<string[]> {
      const ref = await resolveVersion(ctx, versionText);
      const values = variablesFor(ref, { memoryVariables: input.memoryVariables });
      const base = agentInputOf(ref.snapshot, (text) => fillPlaceholders(text, values));
      const agentIds: string[] = [];
      let next = 0;
      let failure: { error: unknown } | undefined;
      const lane = async () => {
        while (!failure && next < input.names.length) {
          const index = next++;
          try {
            const created = await deps.agents.create(ctx, {
              ...base,
              name: input.names[index]!,
              hidden: true,
              hiddenKind: 'evaluation',
              project_id: ref.template.projectId,
              identity_ids: ref.snapshot.identityIds,
              tool_exec_environment_variables: toolVariableValues(ref.snapshot.toolVariables, {}),
            });
            agentIds[index] = created.agent.id;
          } catch (error) {
            failure ??= { error };
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENT_CREATIONS, input.names.length) }, lane));
      if (failure) {
        for (const agentId of agentIds) if (agentId) await deps.agents.delete(ctx, agentId);
        throw failure.error;
      }
      return agentIds;
    },

    /** One agent from a template, for `POST /v1/agents` with `from_template`; no deployment is recorded. */
    async createAgent(ctx: RequestContext, versionText: string, input: CreateAgentsInput): Promise<string> {
      return createAgentFrom(ctx, await resolveVersion(ctx, versionText), input, null);
    },

    /** Moves every agent of the template to a saved version, in a migration workflow. */
    async migrate(ctx: RequestContext, versionText: string, options: MigrationOptions): Promise<MigrationView> {
      const ref = await resolveVersion(ctx, versionText);
      if (!ref.version) throw new UnprocessableError(['body', 'version'], 'Only a saved version can be deployed to agents');
      await assertMigratable(ctx, ref.template, ref.snapshot, ref.version.id, options);
      return migrationView(ctx, await startMigration(ctx, ref.template, ref.version, options));
    },

    /**
     * What migrating the template's agents to a version needs (the console asks for the missing values first); for the
     * working state (`name:dev`), what saving it with a migration would need.
     */
    async migrationRequirements(ctx: RequestContext, versionText: string, given: Record<string, string>): Promise<MigrationRequirements> {
      const ref = await resolveVersion(ctx, versionText);
      if (!ref.version) await deps.simulatedAgents.pull(ctx, ref.template.id);
      const snapshot = ref.version ? ref.snapshot : (await findById(ctx, ref.template.id)).workingSnapshot;
      return migrationRequirements(ctx, ref.template, snapshot, ref.version?.id ?? null, given);
    },

    /** Refuses a version that cannot become an agent with these values, naming the variables missing (A/B arms). */
    assertVariablesGiven(ref: Pick<VersionRef, 'snapshot'>, memoryVariables: Record<string, string>): void {
      variablesFor(ref, { memoryVariables });
    },

    async listMigrations(ctx: RequestContext, query: { templateId?: string | undefined; offset: number }) {
      const rows = TemplateMigration.query(db).forOrg(ctx.organizationId);
      if (query.templateId) rows.where({ templateId: query.templateId });
      const page = await rows
        .orderBy([{ column: 'startedAt', order: 'desc' }, { column: 'id' }])
        .offset(query.offset)
        .limit(MIGRATIONS_PER_PAGE + 1);
      const migrations = [];
      for (const migration of page.slice(0, MIGRATIONS_PER_PAGE)) migrations.push(await migrationView(ctx, migration));
      return { migrations, hasNextPage: page.length > MIGRATIONS_PER_PAGE };
    },

    async getMigration(ctx: RequestContext, workflowId: string): Promise<MigrationView> {
      const migration = await TemplateMigration.query(db).forOrg(ctx.organizationId).findById(migrationIdOf(workflowId));
      if (!migration) throw new NotFoundError('Migration');
      return migrationView(ctx, migration);
    },

    /** Stops a running migration at its next agent; the flag is read by the activities, the signal by the workflow. */
    async abortMigration(ctx: RequestContext, workflowId: string): Promise<MigrationView> {
      const migration = await TemplateMigration.query(db).forOrg(ctx.organizationId).findById(migrationIdOf(workflowId));
      if (!migration) throw new NotFoundError('Migration');
      if (migration.status === 'running') {
        await migration.$query(db).patch({ abortRequested: true });
        await deps.migrations.abort(migration.id);
      }
      return migrationView(ctx, await migration.$query(db));
    },

    /** The deployment's agents, as the `_internal_templates` deployment entities. */
    async deploymentAgents(ctx: RequestContext, deploymentId: string) {
      const deployment = await TemplateDeployment.query(db).forOrg(ctx.organizationId).findById(deploymentId);
      if (!deployment) throw new NotFoundError('Deployment');
      const agents = await Agent.query(db).forOrg(ctx.organizationId).where({ deploymentId }).orderBy('createdAt');
      return { deployment, agents };
    },

    async deleteDeployment(ctx: RequestContext, deploymentId: string): Promise<{ deletedAgents: number; deletedBlocks: number }> {
      const deployment = await TemplateDeployment.query(db).forOrg(ctx.organizationId).findById(deploymentId);
      if (!deployment) throw new NotFoundError('Deployment');
      const agents = await Agent.query(db).forOrg(ctx.organizationId).where({ deploymentId });
      let deletedBlocks = 0;
      for (const agent of agents) {
        const blocks = await db('agent_blocks').where({ agent_id: agent.id, organization_id: ctx.organizationId }).count<{ count: string }[]>('* as count');
        deletedBlocks += Number(blocks[0]?.count ?? 0);
        await deps.agents.delete(ctx, agent.id);
      }
      await deployment.$query(db).delete();
      return { deletedAgents: agents.length, deletedBlocks };
    },
  };
}

/** The console addresses a migration by its workflow id; the row id is what follows the prefix. */
function migrationIdOf(workflowId: string): string {
  return workflowId.replace(/^template-migration-/, '');
}

export type TemplateService = ReturnType<typeof createTemplateService>;
