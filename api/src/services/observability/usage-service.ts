import type { Knex } from 'knex';
import { DOLLARS_PER_CREDIT, EmbeddingModel, InferenceModel, ModelStepCost, OrganizationModelRateLimit, type Database, type StepCostEntry } from '@engram/db';
import { NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { inSpans, partsOf, type MetricQuery } from './metrics-service.js';

const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));
const dollarsOf = (credits: number) => Math.round(credits * DOLLARS_PER_CREDIT * 1e6) / 1e6;

/**
 * The ledger's step charges (metering writes one `inference` subtraction per step, its model in the metadata) of the
 * range, with the step they charged for the project and agent filters.
 */
function chargesInRange(db: Database, ctx: RequestContext, query: MetricQuery): Knex.QueryBuilder {
  const charges = db('transactions')
    .where('transactions.organization_id', ctx.organizationId)
    .where('transactions.source', 'inference')
    .where('transactions.type', 'subtraction')
    .where('transactions.created_at', '>=', query.start)
    .where('transactions.created_at', '<', query.end);
  if (query.projectId || query.agentId) {
    charges.join('steps', function joinStep() {
      this.on('steps.id', '=', 'transactions.step_id').andOn('steps.organization_id', '=', 'transactions.organization_id');
    });
    if (query.projectId) charges.where('steps.project_id', query.projectId);
    if (query.agentId) charges.where('steps.agent_id', query.agentId);
  }
  return charges;
}

/** A charge's hour or day in the caller's timezone (the one binding), as the metrics periods are written. */
function chargePeriodOf(query: MetricQuery): string {
  const unit = query.granularity === 'hourly' ? 'hour' : 'day';
  const format = query.granularity === 'hourly' ? 'YYYY-MM-DD"T"HH24:00' : 'YYYY-MM-DD';
  return `to_char(date_trunc('${unit}', transactions.created_at at time zone ?), '${format}')`;
}

/** The step cost table metering charges a model by: its own entry, else the default (`*`). */
async function stepCostsOf(db: Database, model: string): Promise<StepCostEntry[]> {
  const bare = model.includes('/') ? model.slice(model.indexOf('/') + 1) : model;
  const rows = await ModelStepCost.query(db).whereIn('model', [model, bare, '*']);
  const entry = rows.find((row) => row.model === model) ?? rows.find((row) => row.model === bare) ?? rows.find((row) => row.model === '*');
  return entry?.costs ?? [];
}

/** Usage, spend and limits per model: the console's view of what an organization's agents used and what it cost. */
export function createUsageService(deps: { db: Database }) {
  const { db } = deps;

  /** An admin's override of the organization's limit for a model, else the model's defaults. */
  async function limitsOf(ctx: RequestContext, models: Array<InferenceModel | EmbeddingModel>) {
    const overrides = await OrganizationModelRateLimit.query(db)
      .forOrg(ctx.organizationId)
      .whereIn(
        'model',
        models.map((model) => model.name),
      );
    return models.map((model) => {
      const override = overrides.find((candidate) => candidate.model === model.name);
      return {
        model: model.name,
        requestsPerMinute: override?.requestsPerMinute ?? model.defaultRequestsPerMinutePerOrganization,
        tokensPerMinute: override?.tokensPerMinute ?? model.defaultTokensPerMinutePerOrganization,
      };
    });
  }

  return {
    /**
     * Steps, tokens and credits per model of the steps that started in the range, a run counted once for the model of
     * its first step: the whole quarter hours from the usage rollups, the uneven ends (or one agent's steps) from the
     * steps table.
     */
    async modelSummary(ctx: RequestContext, query: MetricQuery) {
      const { buckets: whole, runs: ends } = partsOf(query);
      const sources: Knex.QueryBuilder[] = [];
      if (whole) {
        const buckets = db('model_usage_buckets')
          .where('organization_id', ctx.organizationId)
          .where('bucket_start', '>=', whole.start)
          .where('bucket_start', '<', whole.end)
          .select('model', 'steps', 'runs', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'credits');
        if (query.projectId) buckets.where('project_id', query.projectId);
        sources.push(buckets);
      }
      if (ends.length) {
        const steps = inSpans(db('steps'), 'steps.created_at', ends)
          .leftJoin('transactions', function joinCharge() {
            this.on('transactions.id', '=', 'steps.tid').andOn('transactions.organization_id', '=', 'steps.organization_id');
          })
          .where('steps.organization_id', ctx.organizationId)
          .select(
            db.raw(`coalesce(steps.model_handle, steps.model, 'unknown') as model`),
            db.raw('1 as steps, (steps.step_index = 0 and steps.run_id is not null)::int as runs'),
            db.raw('steps.prompt_tokens, steps.completion_tokens, steps.total_tokens, coalesce(transactions.amount, 0) as credits'),
          );
        if (query.projectId) steps.where('steps.project_id', query.projectId);
        if (query.agentId) steps.where('steps.agent_id', query.agentId);
        sources.push(steps);
      }
      if (!sources.length) return [];
      const rows = (await db
        .from(db.unionAll(sources, true).as('usage'))
        .select(
          'model',
          db.raw('sum(steps) as steps, sum(runs) as runs, sum(prompt_tokens) as prompt_tokens, sum(completion_tokens) as completion_tokens'),
          db.raw('sum(total_tokens) as total_tokens, sum(credits) as credits'),
        )
        .groupBy('model')
        .havingRaw('sum(steps) > 0')
        .orderBy([{ column: 'steps', order: 'desc' }, { column: 'model' }])) as Array<Record<string, unknown> & { model: string }>;
      return rows.map((row) => ({
        model: row.model,
        runs: num(row.runs),
        steps: num(row.steps),
        promptTokens: num(row.promptTokens),
        completionTokens: num(row.completionTokens),
        totalTokens: num(row.totalTokens),
        credits: num(row.credits),
        dollars: dollarsOf(num(row.credits)),
      }));
    },

    /**
     * The range's step charges per model, with the registered model's id where the model is registered, and per
     * period of the range (all models together), for a chart of spend over time.
     */
    async costs(ctx: RequestContext, query: MetricQuery) {
      const periods = (await chargesInRange(db, ctx, query)
        .select(db.raw(`${chargePeriodOf(query)} as period`, [query.timezone]), db.raw('count(*) as steps, sum(transactions.amount) as credits'))
        .groupByRaw('1')
        .orderByRaw('1')) as Array<{ period: string; steps: string; credits: string }>;
      const rows = (await chargesInRange(db, ctx, query)
        .select(db.raw(`coalesce(transactions.metadata->>'model', 'unknown') as model`), db.raw('count(*) as steps, sum(transactions.amount) as credits'))
        .groupByRaw('1')
        .orderBy([{ column: 'credits', order: 'desc' }, { column: 'model' }])) as Array<{ model: string; steps: string; credits: string }>;
      const registered = await InferenceModel.query(db).whereIn(
        'name',
        rows.map((row) => row.model),
      );
      const models = rows.map((row) => ({
        modelId: registered.find((model) => model.name === row.model)?.id ?? null,
        model: row.model,
        steps: num(row.steps),
        credits: num(row.credits),
        dollars: dollarsOf(num(row.credits)),
      }));
      const credits = models.reduce((sum, model) => sum + model.credits, 0);
      const series = periods.map((row) => ({ period: row.period, steps: num(row.steps), credits: num(row.credits), dollars: dollarsOf(num(row.credits)) }));
      return { credits, dollars: dollarsOf(credits), models, series };
    },

    /** One registered model's price per step and what its steps cost the organization per period of the range. */
    async modelCosts(ctx: RequestContext, modelId: string, query: MetricQuery) {
      const model = await InferenceModel.query(db).findById(modelId);
      if (!model) throw new NotFoundError('Model');
      const rows = (await chargesInRange(db, ctx, query)
        .whereRaw(`transactions.metadata->>'model' = ?`, [model.name])
        .select(db.raw(`${chargePeriodOf(query)} as period`, [query.timezone]), db.raw('count(*) as steps, sum(transactions.amount) as credits'))
        .groupByRaw('1')
        .orderByRaw('1')) as Array<{ period: string; steps: string; credits: string }>;
      const series = rows.map((row) => ({ period: row.period, steps: num(row.steps), credits: num(row.credits), dollars: dollarsOf(num(row.credits)) }));
      const credits = series.reduce((sum, row) => sum + row.credits, 0);
      return {
        modelId: model.id,
        model: model.name,
        brand: model.brand,
        stepCosts: { version: 1 as const, costs: await stepCostsOf(db, model.name) },
        steps: series.reduce((sum, row) => sum + row.steps, 0),
        credits,
        dollars: dollarsOf(credits),
        series,
      };
    },

    async inferenceRateLimits(ctx: RequestContext) {
      return limitsOf(ctx, await InferenceModel.query(db).whereNull('disabledAt').orderBy('name'));
    },

    async embeddingRateLimits(ctx: RequestContext) {
      return limitsOf(ctx, await EmbeddingModel.query(db).whereNull('disabledAt').orderBy('name'));
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
