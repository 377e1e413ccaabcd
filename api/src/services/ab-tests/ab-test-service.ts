import { chooseArm, significantWinner, wilsonInterval } from '@engram/core';
import { AbTest, AbTestAssignment, AbTestTemplate, AgentTemplate, AgentTemplateVersion, SimulatedAgent, newId, type Database } from '@engram/db';
import { ConsoleError, NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { OrganizationService } from '../tenancy/organizations.js';
import type { TierLimitGuard } from '../tenancy/tier-limits.js';
import type { TemplateService } from '../templates/template-service.js';

export type AbTestArmView = {
  arm: AbTestTemplate;
  template: AgentTemplate;
  version: AgentTemplateVersion;
  simulatedAgentId: string | null;
};

export type AbTestArmResult = {
  arm: AbTestArmView;
  users: number;
  runs: number;
  medianLatencyMs: number | null;
  errorRate: number | null;
  positive: number;
  negative: number;
  feedbackRate: { rate: number | null; low: number; high: number };
  cost: number;
};

export type AbTestServiceDeps = {
  db: Database;
  organizations: Pick<OrganizationService, 'resolveProject'>;
  templates: Pick<TemplateService, 'resolveVersion' | 'createAgents' | 'rollback' | 'save' | 'migrate' | 'assertVariablesGiven'>;
  limits: Pick<TierLimitGuard, 'assertWithinLimit'>;
};

const validation = (message: string) => new ConsoleError('bad_request', 'validation', message);

/**
 * A/B tests with a real traffic split: versions of one template attached as arms with weights; each end user gets an
 * agent from the arm a hash of their identity picks (the same arm every time), and the arms' users, runs, latency,
 * errors, feedback and cost are compared. Stopping with a significant winner makes its version the template's
 * deployed one and migrates every agent of the template to it.
 */
export function createAbTestService(deps: AbTestServiceDeps) {
  const { db } = deps;

  async function find(ctx: RequestContext, id: string): Promise<AbTest> {
    const abTest = await AbTest.query(db).forOrg(ctx.organizationId).findById(id);
    if (!abTest) throw new NotFoundError('A/B test');
    return abTest;
  }

  async function armsOf(ctx: RequestContext, abTestId: string): Promise<AbTestArmView[]> {
    const arms = await AbTestTemplate.query(db).forOrg(ctx.organizationId).where({ abTestId }).orderBy([{ column: 'createdAt' }, { column: 'id' }]);
    const views: AbTestArmView[] = [];
    for (const arm of arms) {
      const template = await AgentTemplate.query(db).forOrg(ctx.organizationId).findById(arm.templateId);
      const version = await AgentTemplateVersion.query(db).forOrg(ctx.organizationId).findById(arm.templateVersionId);
      if (!template || !version) continue;
      const simulated = await SimulatedAgent.query(db).forOrg(ctx.organizationId).findOne({ templateId: template.id });
      views.push({ arm, template, version, simulatedAgentId: simulated?.id ?? null });
    }
    return views;
  }

  async function findArm(ctx: RequestContext, abTestId: string, armId: string): Promise<AbTestTemplate> {
    const arm = await AbTestTemplate.query(db).forOrg(ctx.organizationId).findOne({ id: armId, abTestId });
    if (!arm) throw new NotFoundError('Attached template');
    return arm;
  }

  async function results(ctx: RequestContext, abTestId: string): Promise<AbTestArmResult[]> {
    const arms = await armsOf(ctx, abTestId);
    const out: AbTestArmResult[] = [];
    for (const view of arms) {
      const agents = db('ab_test_assignments').where({ arm_id: view.arm.id, organization_id: ctx.organizationId }).select('agent_id');
      const [users] = (await db('ab_test_assignments').where({ arm_id: view.arm.id, organization_id: ctx.organizationId }).count({ n: '*' })) as Array<{ n: string }>;
      const [runs] = (await db('runs')
        .where('organization_id', ctx.organizationId)
        .whereIn('agent_id', agents)
        .select(
          db.raw('count(*) as runs'),
          db.raw(`count(*) filter (where status = 'failed') as failed`),
          db.raw(`count(*) filter (where status in ('completed', 'failed')) as finished`),
          db.raw(`percentile_cont(0.5) within group (order by extract(epoch from (completed_at - created_at)) * 1000) filter (where completed_at is not null) as median_ms`),
        )) as Array<{ runs: string; failed: string; finished: string; medianMs: number | null }>;
      const [feedback] = (await db('steps')
        .where('organization_id', ctx.organizationId)
        .whereIn('agent_id', agents)
        .select(db.raw(`count(*) filter (where feedback = 'positive') as positive`), db.raw(`count(*) filter (where feedback = 'negative') as negative`))) as Array<{
        positive: string;
        negative: string;
      }>;
      const [cost] = (await db('transactions')
        .where({ organization_id: ctx.organizationId, type: 'subtraction' })
        .whereIn('step_id', db('steps').where('organization_id', ctx.organizationId).whereIn('agent_id', agents).select('id'))
        .sum({ cost: 'amount' })) as Array<{ cost: string | null }>;
      const positive = Number(feedback?.positive ?? 0);
      const negative = Number(feedback?.negative ?? 0);
      const finished = Number(runs?.finished ?? 0);
      out.push({
        arm: view,
        users: Number(users?.n ?? 0),
        runs: Number(runs?.runs ?? 0),
        medianLatencyMs: runs?.medianMs === null || runs?.medianMs === undefined ? null : Number(runs.medianMs),
        errorRate: finished ? Number(runs?.failed ?? 0) / finished : null,
        positive,
        negative,
        feedbackRate: wilsonInterval(positive, positive + negative),
        cost: Number(cost?.cost ?? 0),
      });
    }
    return out;
  }

  function winnerOf(armResults: AbTestArmResult[]) {
    return significantWinner(armResults.map((result) => ({ id: result.arm.arm.id, positive: result.positive, rated: result.positive + result.negative })));
  }

  return {
    get: find,
    arms: armsOf,

    async list(ctx: RequestContext, query: { search?: string | undefined; projectId?: string | undefined; offset: number; limit: number }) {
      const rows = AbTest.query(db).forOrg(ctx.organizationId);
      if (query.projectId) rows.where({ projectId: query.projectId });
      if (query.search) rows.where('name', 'ilike', `%${query.search.replace(/[\\%_]/g, '\\$&')}%`);
      const page = await rows.orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id' }]).offset(query.offset).limit(query.limit + 1);
      return { abTests: page.slice(0, query.limit), hasNextPage: page.length > query.limit };
    },

    /** A new A/B test, within the tier's A/B test limit. */
    async create(ctx: RequestContext, input: { name: string; description: string | null; projectId?: string | undefined }): Promise<AbTest> {
      const projectId = await deps.organizations.resolveProject(ctx.organizationId, input.projectId ? { id: input.projectId } : ctx.project);
      return db.transaction(async (trx) => {
        await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'abTests');
        return AbTest.query(trx)
          .insert({ id: newId('abTest'), organizationId: ctx.organizationId, projectId, name: input.name, description: input.description, status: 'running' })
          .returning('*');
      });
    },

    async update(ctx: RequestContext, id: string, patch: { name?: string | undefined; description?: string | null | undefined }): Promise<AbTest> {
      const abTest = await find(ctx, id);
      return abTest.$query(db).patchAndFetch({
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
      });
    },

    /** The test and its arms go; the agents made for its users stay theirs. */
    async delete(ctx: RequestContext, id: string): Promise<void> {
      const abTest = await find(ctx, id);
      await abTest.$query(db).delete();
    },

    /**
     * Attaches a saved version (`name:version`) as an arm; every arm is a version of one template. The arm's memory
     * variables fill the version's variables for the agents it makes, so a version whose variable has no default is
     * refused unless a value is given.
     */
    async attach(
      ctx: RequestContext,
      abTestId: string,
      input: { templateName: string; weight: number; memoryVariables: Record<string, string> },
    ): Promise<AbTestArmView> {
      const abTest = await find(ctx, abTestId);
      if (abTest.status !== 'running') throw validation('The A/B test is stopped');
      const ref = await deps.templates.resolveVersion(ctx, input.templateName);
      if (!ref.version) throw validation('Only a saved version can be an arm of an A/B test');
      deps.templates.assertVariablesGiven(ref, input.memoryVariables);
      const arms = await AbTestTemplate.query(db).forOrg(ctx.organizationId).where({ abTestId });
      if (arms.some((arm) => arm.templateId !== ref.template.id)) throw validation('Every arm of an A/B test is a version of the same template');
      if (arms.some((arm) => arm.templateVersionId === ref.version!.id)) throw validation(`${ref.template.name}:${ref.version.version} is already an arm of this test`);
      const arm = await AbTestTemplate.query(db)
        .insert({
          id: newId('abTestTemplate'),
          organizationId: ctx.organizationId,
          abTestId,
          templateId: ref.template.id,
          templateVersionId: ref.version.id,
          weight: input.weight,
          memoryVariables: input.memoryVariables,
        })
        .returning('*');
      return (await armsOf(ctx, abTestId)).find((view) => view.arm.id === arm.id)!;
    },

    async setWeight(ctx: RequestContext, abTestId: string, armId: string, weight: number): Promise<AbTestArmView> {
      const arm = await findArm(ctx, abTestId, armId);
      await arm.$query(db).patch({ weight });
      return (await armsOf(ctx, abTestId)).find((view) => view.arm.id === arm.id)!;
    },

    /** Refused once users landed on the arm: their agents would lose the arm they are counted in. */
    async detach(ctx: RequestContext, abTestId: string, armId: string): Promise<void> {
      const arm = await findArm(ctx, abTestId, armId);
      const users = await AbTestAssignment.query(db).forOrg(ctx.organizationId).where({ armId }).resultSize();
      if (users > 0) throw validation(`${users} user${users === 1 ? ' has' : 's have'} landed on this arm; stop the test instead`);
      await arm.$query(db).delete();
    },

    /**
     * The end user's agent: the one made for them before, or a new one from the arm their identity hashes to (a
     * deployment of that version, so the template's migrations reach it).
     */
    async agentFor(ctx: RequestContext, abTestId: string, input: { identity: string; memoryVariables: Record<string, string> }) {
      const abTest = await find(ctx, abTestId);
      const existing = await AbTestAssignment.query(db).forOrg(ctx.organizationId).findOne({ abTestId, identity: input.identity });
      if (existing) return { assignment: existing, created: false };
      if (abTest.status !== 'running') throw validation('The A/B test is stopped');
      const arms = await armsOf(ctx, abTestId);
      if (arms.length === 0 || arms.every((view) => view.arm.weight === 0)) throw validation('The A/B test has no arm to send users to');
      const chosen = chooseArm(abTestId, input.identity, arms.map((view) => ({ id: view.arm.id, weight: view.arm.weight, view }))).view;
      const { agentIds } = await deps.templates.createAgents(ctx, `${chosen.template.name}:${chosen.version.version}`, {
        // The user's own values come first; the arm's fill the rest.
        memoryVariables: { ...chosen.arm.memoryVariables, ...input.memoryVariables },
        tags: [`ab-test:${abTestId}`],
      });
      const inserted = (await db('ab_test_assignments')
        .insert({ ab_test_id: abTestId, identity: input.identity, organization_id: ctx.organizationId, arm_id: chosen.arm.id, agent_id: agentIds[0]! })
        .onConflict(['ab_test_id', 'identity'])
        .ignore()
        .returning('ab_test_id')) as unknown[];
      // Two first requests of one user at once: the first assignment stands.
      const assignment = (await AbTestAssignment.query(db).forOrg(ctx.organizationId).findOne({ abTestId, identity: input.identity }))!;
      return { assignment, created: inserted.length > 0 };
    },

    async results(ctx: RequestContext, abTestId: string) {
      const abTest = await find(ctx, abTestId);
      const armResults = await results(ctx, abTestId);
      const winner = winnerOf(armResults);
      return { abTest, arms: armResults, winner: winner ? { armId: winner.arm.id, pValue: winner.pValue } : null };
    },

    /**
     * Stops the test. With `promote`, the significant winner's version becomes the template's deployed version (saved
     * again as the newest when it is not) and every agent of the template, the losers' included, is migrated to it
     * keeping its own memory.
     */
    async stop(ctx: RequestContext, abTestId: string, promote: boolean) {
      const abTest = await find(ctx, abTestId);
      if (abTest.status !== 'running') throw validation('The A/B test is already stopped');
      let migrationWorkflowId: string | null = null;
      let winnerArmId: string | null = null;
      if (promote) {
        const armResults = await results(ctx, abTestId);
        const winner = winnerOf(armResults);
        if (!winner) throw validation('No arm is significantly better yet');
        const { template, version, arm } = armResults.find((result) => result.arm.arm.id === winner.arm.id)!.arm;
        const current = await AgentTemplate.query(db).forOrg(ctx.organizationId).findById(template.id);
        // The losers' agents have the values their users gave; the winner's arm values fill what they lack.
        const migrateAgents = { strategy: 'reconcile-all' as const, preserveCoreMemories: true, memoryVariables: arm.memoryVariables };
        let deployed = version.version;
        if (!current || current.latestVersion !== version.version) {
          await deps.templates.rollback(ctx, template.name, String(version.version));
          deployed = (await deps.templates.save(ctx, template.name, { message: `Promoted from A/B test '${abTest.name}'` })).version.version;
        }
        migrationWorkflowId = (await deps.templates.migrate(ctx, `${template.name}:${deployed}`, migrateAgents)).workflowId;
        winnerArmId = winner.arm.id;
      }
      const stopped = await abTest.$query(db).patchAndFetch({ status: 'stopped', stoppedAt: new Date(), winnerArmId });
      return { abTest: stopped, migrationWorkflowId };
    },
  };
}

export type AbTestService = ReturnType<typeof createAbTestService>;
