import type { AgentType, LettaMessage } from '@engram/core';
import { Agent, Project, Run, Step, StepTrace, type Database, ofVisibleAgent } from '@engram/db';
import { NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';
import type { MessageService } from '../messages/message-service.js';
import { conversionOptionsOf, DEFAULT_CONVERSION } from '../runs/run-service.js';

export type StepFeedback = 'positive' | 'negative';

export type StepFilter = {
  startDate?: Date | undefined;
  endDate?: Date | undefined;
  model?: string | undefined;
  agentId?: string | undefined;
  traceIds?: string[] | undefined;
  feedback?: StepFeedback | undefined;
  hasFeedback?: boolean | undefined;
  /** Steps carrying every one of these tags. */
  tags?: string[] | undefined;
  /** `project_id`, else the `X-Project` / `X-Project-Id` header of the request. */
  project?: { id?: string | undefined; slug?: string | undefined } | undefined;
};

export type StepServiceDeps = { db: Database; messages: Pick<MessageService, 'listStepMessages'> };

export function createStepService(deps: StepServiceDeps) {
  const { db } = deps;

  async function requireStep(ctx: RequestContext, stepId: string): Promise<Step> {
    const step = await Step.query(db).forOrg(ctx.organizationId).findById(stepId);
    if (!step) throw new NotFoundError('Step');
    return step;
  }

  /** Cursors are ids of this organization's steps; any other id would reveal where a foreign step sorts. */
  async function cursorsAreOwn(ctx: RequestContext, page: PageRequest): Promise<boolean> {
    const cursors = [page.before, page.after].filter((id): id is string => id !== undefined);
    if (cursors.length === 0) return true;
    const own = await Step.query(db).forOrg(ctx.organizationId).whereIn('id', cursors).resultSize();
    return own === new Set(cursors).size;
  }

  function filtered(ctx: RequestContext, filter: StepFilter) {
    const query = Step.query(db).forOrg(ctx.organizationId);
    if (filter.startDate) query.where('steps.created_at', '>=', filter.startDate);
    if (filter.endDate) query.where('steps.created_at', '<=', filter.endDate);
    if (filter.model !== undefined) query.where('steps.model', filter.model);
    // Steps of hidden agents (a template's simulated agent, an evaluation's, a visitor's copy) are listed only by their agent.
    if (filter.agentId !== undefined) query.where('steps.agent_id', filter.agentId);
    else query.whereRaw(ofVisibleAgent('steps'));
    if (filter.traceIds?.length) query.whereIn('steps.trace_id', filter.traceIds);
    if (filter.feedback !== undefined) query.where('steps.feedback', filter.feedback);
    if (filter.hasFeedback !== undefined) query[filter.hasFeedback ? 'whereNotNull' : 'whereNull']('steps.feedback');
    if (filter.tags?.length) query.whereRaw('steps.tags @> ?::text[]', [filter.tags]);
    const project = filter.project ?? {};
    if (project.id !== undefined) query.where('steps.project_id', project.id);
    else if (project.slug !== undefined) {
      query.whereIn('steps.project_id', Project.query(db).forOrg(ctx.organizationId).where('slug', project.slug).select('id'));
    }
    return query;
  }

  return {
    getStep: requireStep,

    async listSteps(ctx: RequestContext, filter: StepFilter, page: PageRequest): Promise<Step[]> {
      if (!(await cursorsAreOwn(ctx, page))) return [];
      return keysetPage(filtered(ctx, filter), page, { table: 'steps' });
    },

    /** The recorded provider call of a step, or null when the step made none that was recorded. */
    async getTrace(ctx: RequestContext, stepId: string): Promise<{ trace: StepTrace | null; agentId: string | null }> {
      const [trace, step] = await Promise.all([
        StepTrace.query(db).forOrg(ctx.organizationId).findById(stepId),
        Step.query(db).forOrg(ctx.organizationId).findById(stepId),
      ]);
      // The model call records its trace before its step is applied, so a trace can outlive a step that failed.
      if (!trace && !step) throw new NotFoundError('Step');
      return { trace: trace ?? null, agentId: step?.agentId ?? null };
    },

    /** A step's messages, read the way its run asked them to be read (assistant tool, kwarg). */
    async listStepMessages(ctx: RequestContext, stepId: string, page: PageRequest): Promise<LettaMessage[]> {
      const step = await requireStep(ctx, stepId);
      const [agent, run] = await Promise.all([
        step.agentId ? Agent.query(db).forOrg(ctx.organizationId).findById(step.agentId) : undefined,
        step.runId ? Run.query(db).forOrg(ctx.organizationId).findById(step.runId) : undefined,
      ]);
      const agentType = (agent?.agentType ?? 'letta_v1_agent') as AgentType;
      return deps.messages.listStepMessages(ctx, step.id, agentType, { ...page, ...(run ? conversionOptionsOf(run) : DEFAULT_CONVERSION) });
    },

    /** Sets or clears (null) a step's feedback; tags, when given, replace the step's tags. */
    async setFeedback(ctx: RequestContext, stepId: string, input: { feedback: StepFeedback | null; tags: string[] | null }): Promise<Step> {
      const step = await requireStep(ctx, stepId);
      return step.$query(db).patchAndFetch({ feedback: input.feedback, ...(input.tags ? { tags: input.tags } : {}) });
    },
  };
}

export type StepService = ReturnType<typeof createStepService>;
