import {
  fillPlaceholders,
  memoryVariablesOf,
  mergeAgentEdits,
  missingVariablesMessage,
  resolveMemoryVariables,
  sameJson,
  type TemplateSnapshot,
} from '@engram/core/templates/snapshot';
import { Agent, AgentTemplate, Identity, IdentityAgent, SimulatedAgent, newId, type Database } from '@engram/db';
import { applySnapshotToAgent, TemplateVariablesMissingError } from '@engram/integrations/templates';
import { AppError, ConsoleError, NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { replaceFolders } from '../agents/agent-folders-service.js';
import type { AgentService } from '../agents/agent-service.js';
import { EVERY_RELATIONSHIP } from '../agents/agent-views.js';
import type { MessageHistoryService } from '../messages/message-history-service.js';
import { agentInputOf, snapshotOfAgent, toolVariableValues } from './snapshots.js';
import type { SimulatedAgentView } from './types.js';

export type SimulatedAgentServiceDeps = {
  db: Database;
  agents: Pick<AgentService, 'create' | 'get' | 'delete'>;
  messageHistory: Pick<MessageHistoryService, 'resetMessages'>;
};

/** Why an agent could not be built, in words the editor can show. */
function reasonOf(error: unknown): string {
  if (error instanceof AppError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** A 500 that says why (spec 000 §8: simulated agent refresh, sync and update may answer 500 with a message). */
function buildFailed(reason: string): ConsoleError {
  return new ConsoleError('internal', 'simulatedAgentCorrupted', `The simulated agent could not be built from the template: ${reason}`);
}

/**
 * Each template's default simulated agent: a hidden agent built from the template's working state with memory
 * variables of its own, which the template editor chats with and edits. Edits made on the agent flow back into the
 * working state (`pull`, a three-way merge against the state it was built with); changes of the working state flow
 * to the agent (`push`, keeping its messages). When the agent cannot be built (a tool of the template was deleted,
 * a filled block outgrows its limit), it is marked corrupted with the reason until a rebuild succeeds.
 */
export function createSimulatedAgentService(deps: SimulatedAgentServiceDeps) {
  const { db } = deps;

  async function templateOf(ctx: RequestContext, templateId: string): Promise<AgentTemplate> {
    const template = await AgentTemplate.query(db).forOrg(ctx.organizationId).findById(templateId);
    if (!template) throw new NotFoundError('Template');
    return template;
  }

  async function findById(ctx: RequestContext, simulatedAgentId: string): Promise<SimulatedAgent> {
    const simulated = await SimulatedAgent.query(db).forOrg(ctx.organizationId).findById(simulatedAgentId);
    if (!simulated) throw new NotFoundError('Simulated agent');
    return simulated;
  }

  /** The agent's state as a template snapshot, read back the way `pull` compares it. */
  async function stateOf(ctx: RequestContext, agentId: string): Promise<TemplateSnapshot> {
    return snapshotOfAgent(await deps.agents.get(ctx, agentId, EVERY_RELATIONSHIP));
  }

  /**
   * The variables the agent is built with: its own, then the template's defaults. One with neither refuses the build
   * (the reason names it), so the agent never holds a `{{variable}}`.
   */
  function variablesFor(snapshot: TemplateSnapshot, memoryVariables: Record<string, string>): Record<string, string> {
    const { values, missing } = resolveMemoryVariables(memoryVariablesOf(snapshot), memoryVariables);
    if (missing.length > 0) throw new TemplateVariablesMissingError(missing);
    return values;
  }

  /** A new agent from the working state; the record then names it, uncorrupted. */
  async function build(ctx: RequestContext, template: AgentTemplate, simulated: SimulatedAgent): Promise<SimulatedAgent> {
    const snapshot = template.workingSnapshot;
    const values = variablesFor(snapshot, simulated.memoryVariables);
    const created = await deps.agents.create(ctx, {
      ...agentInputOf(snapshot, (text) => fillPlaceholders(text, values)),
      name: simulated.name,
      hidden: true,
      hiddenKind: 'simulated',
      project_id: template.projectId,
      identity_ids: snapshot.identityIds,
      tool_exec_environment_variables: toolVariableValues(snapshot.toolVariables, {}),
    });
    return simulated.$query(db).patchAndFetch({
      agentId: created.agent.id,
      appliedState: snapshotOfAgent(created),
      corruptionReason: null,
    });
  }

  /** Records why the agent could not be built; it stays as it was (or absent) until a rebuild succeeds. */
  async function markCorrupted(simulated: SimulatedAgent, error: unknown): Promise<string> {
    const reason = reasonOf(error);
    await simulated.$query(db).patch({ corruptionReason: reason });
    return reason;
  }

  /** Applies the working state to the existing agent in one transaction (tags, folders and identities too), messages kept. */
  async function apply(ctx: RequestContext, template: AgentTemplate, simulated: SimulatedAgent, agentId: string): Promise<void> {
    const snapshot = template.workingSnapshot;
    await db.transaction(async (trx) => {
      const agent = await Agent.query(trx).forOrg(ctx.organizationId).findById(agentId).forUpdate();
      if (!agent) throw new NotFoundError('Agent');
      agent.memoryVariables = variablesFor(snapshot, simulated.memoryVariables);
      await applySnapshotToAgent(trx, ctx.organizationId, agent, snapshot, { strategy: 'reconcile-all', preserveCoreMemories: false }, { tags: snapshot.tags });
      await replaceFolders(trx, ctx.organizationId, agentId, snapshot.sourceIds, new Date());
      // Identities deleted since are left out, as tools are.
      const identities = await Identity.query(trx).forOrg(ctx.organizationId).whereIn('id', snapshot.identityIds).select('id');
      await IdentityAgent.query(trx).forOrg(ctx.organizationId).where({ agentId }).delete();
      if (identities.length > 0) {
        await IdentityAgent.query(trx).insert(identities.map((identity) => ({ identityId: identity.id, agentId, organizationId: ctx.organizationId })));
      }
    });
    await simulated.$query(db).patch({ appliedState: await stateOf(ctx, agentId), corruptionReason: null });
  }

  async function agentExists(ctx: RequestContext, agentId: string | null): Promise<boolean> {
    return agentId !== null && (await Agent.query(db).forOrg(ctx.organizationId).findById(agentId).resultSize()) > 0;
  }

  /** Makes the agent what the working state builds: applied in place, or built anew when it is gone. Throws why not. */
  async function rebuildInPlace(ctx: RequestContext, template: AgentTemplate, simulated: SimulatedAgent): Promise<void> {
    try {
      if (simulated.agentId && (await agentExists(ctx, simulated.agentId))) await apply(ctx, template, simulated, simulated.agentId);
      else await build(ctx, template, simulated);
    } catch (error) {
      throw buildFailed(await markCorrupted(simulated, error));
    }
  }

  async function view(ctx: RequestContext, template: AgentTemplate, simulated: SimulatedAgent): Promise<SimulatedAgentView> {
    const present = await agentExists(ctx, simulated.agentId);
    return {
      simulated,
      template,
      isCorrupted: simulated.corruptionReason !== null || !present,
      reason: simulated.corruptionReason ?? (present ? null : 'The simulated agent was deleted; refresh it to build it again'),
    };
  }

  async function defaultRecord(ctx: RequestContext, template: AgentTemplate): Promise<SimulatedAgent | undefined> {
    return SimulatedAgent.query(db).forOrg(ctx.organizationId).findOne({ templateId: template.id });
  }

  /**
   * Carries the edits made on the agent since it was last built into the template's working state (and writes
   * it); the working state as it then is. Nothing changes when the agent was not edited.
   */
  async function pull(ctx: RequestContext, templateId: string): Promise<TemplateSnapshot> {
    const template = await templateOf(ctx, templateId);
    const simulated = await defaultRecord(ctx, template);
    if (!simulated?.agentId || !simulated.appliedState || !(await agentExists(ctx, simulated.agentId))) return template.workingSnapshot;
    const current = await stateOf(ctx, simulated.agentId);
    const applied = simulated.appliedState;
    if (sameJson(current, applied)) return template.workingSnapshot;
    return db.transaction(async (trx) => {
      const locked = (await AgentTemplate.query(trx).forOrg(ctx.organizationId).findById(templateId).forUpdate())!;
      const merged = mergeAgentEdits(locked.workingSnapshot, applied, current);
      await locked.$query(trx).patch({ workingSnapshot: merged });
      // Taken in: the same edits are not merged again.
      await simulated.$query(trx).patch({ appliedState: current });
      return merged;
    });
  }

  /**
   * Brings the agent to the working state after the template changed. A failure does not fail the change: the
   * agent is marked corrupted with the reason, which the editor shows.
   */
  async function push(ctx: RequestContext, templateId: string): Promise<void> {
    const template = await templateOf(ctx, templateId);
    const simulated = await defaultRecord(ctx, template);
    if (!simulated) return;
    await rebuildInPlace(ctx, template, simulated).catch(() => undefined);
  }

  return {
    /**
     * The template's default simulated agent, built on first use. A build that fails leaves the last agent in place
     * (none the first time), marked corrupted with the reason, so the editor can show it and ask for what is missing.
     */
    async getDefault(ctx: RequestContext, templateId: string): Promise<SimulatedAgentView> {
      const template = await templateOf(ctx, templateId);
      if (!(await defaultRecord(ctx, template))) {
        // A unique template id: of two first visits at once, one record is made.
        await SimulatedAgent.query(db)
          .insert({
            id: newId('simulatedAgent'),
            organizationId: ctx.organizationId,
            templateId: template.id,
            agentId: null,
            name: `${template.name}-simulated`,
            memoryVariables: {},
            appliedState: null,
            corruptionReason: null,
          })
          .onConflict('template_id')
          .ignore();
      }
      const simulated = (await defaultRecord(ctx, template))!;
      if (!(await agentExists(ctx, simulated.agentId))) await rebuildInPlace(ctx, template, simulated).catch(() => undefined);
      return view(ctx, template, await simulated.$query(db));
    },

    async get(ctx: RequestContext, simulatedAgentId: string): Promise<SimulatedAgentView> {
      const simulated = await findById(ctx, simulatedAgentId);
      return view(ctx, await templateOf(ctx, simulated.templateId), simulated);
    },

    /** Starts the conversation over: the agent's messages are deleted, its memory and settings stay. */
    async flush(ctx: RequestContext, simulatedAgentId: string): Promise<SimulatedAgentView> {
      const simulated = await findById(ctx, simulatedAgentId);
      if (!simulated.agentId || !(await agentExists(ctx, simulated.agentId))) throw new NotFoundError('Simulated agent');
      await deps.messageHistory.resetMessages(ctx, simulated.agentId, { forgetHistory: true });
      return view(ctx, await templateOf(ctx, simulated.templateId), simulated);
    },

    /** Rebuilds the agent from the working state as a new agent (a fresh conversation); the old one goes. */
    async refresh(ctx: RequestContext, simulatedAgentId: string): Promise<SimulatedAgentView> {
      const simulated = await findById(ctx, simulatedAgentId);
      const template = await templateOf(ctx, simulated.templateId);
      const previous = simulated.agentId;
      try {
        await build(ctx, template, simulated);
      } catch (error) {
        throw buildFailed(await markCorrupted(simulated, error));
      }
      if (previous && (await agentExists(ctx, previous))) await deps.agents.delete(ctx, previous);
      return view(ctx, template, await simulated.$query(db));
    },

    pull,
    push,

    /** The editor's sync: edits made on the agent go into the working state, and the agent is rebuilt from it. */
    async sync(ctx: RequestContext, templateId: string): Promise<void> {
      const template = await templateOf(ctx, templateId);
      const simulated = await defaultRecord(ctx, template);
      if (!simulated) throw new NotFoundError('Simulated agent');
      await pull(ctx, templateId);
      await rebuildInPlace(ctx, await templateOf(ctx, templateId), simulated);
    },

    async getVariables(ctx: RequestContext, simulatedAgentId: string): Promise<Record<string, string>> {
      return (await findById(ctx, simulatedAgentId)).memoryVariables;
    },

    /**
     * Replaces the agent's memory variables and fills the working state with them again (edits on the agent are kept
     * first). Values that leave a variable without a default unfilled are refused before anything changes.
     */
    async putVariables(ctx: RequestContext, simulatedAgentId: string, memoryVariables: Record<string, string>): Promise<Record<string, string>> {
      const simulated = await findById(ctx, simulatedAgentId);
      const missing = resolveMemoryVariables(memoryVariablesOf((await templateOf(ctx, simulated.templateId)).workingSnapshot), memoryVariables).missing;
      if (missing.length > 0) throw new ConsoleError('bad_request', 'validation', missingVariablesMessage(missing));
      await pull(ctx, simulated.templateId);
      const updated = await simulated.$query(db).patchAndFetch({ memoryVariables });
      await rebuildInPlace(ctx, await templateOf(ctx, simulated.templateId), updated);
      return updated.memoryVariables;
    },

    /** Deletes the template's simulated agent with its record (when the template goes). */
    async removeFor(ctx: RequestContext, templateId: string): Promise<void> {
      const simulated = await SimulatedAgent.query(db).forOrg(ctx.organizationId).findOne({ templateId });
      if (!simulated) return;
      if (simulated.agentId && (await agentExists(ctx, simulated.agentId))) await deps.agents.delete(ctx, simulated.agentId);
      await simulated.$query(db).delete();
    },
  };
}

export type SimulatedAgentService = ReturnType<typeof createSimulatedAgentService>;
