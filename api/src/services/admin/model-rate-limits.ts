import { InferenceModel, Organization, OrganizationModelRateLimit, type Database, type LlmConfig } from '@engram/db';
import { BadRequestError, NotFoundError, RateLimitedError } from '../../errors.js';

export type RateLimit = { model: string; requestsPerMinute: number; tokensPerMinute: number };

const WINDOW_SECONDS = 60;

/** The registry names an agent's model may go by: its handle, `<provider>/<model>`, or the bare model. */
export function registryNamesOf(llmConfig: Pick<LlmConfig, 'handle' | 'model' | 'provider_name' | 'model_endpoint_type'>): string[] {
  const provider = llmConfig.provider_name ?? llmConfig.model_endpoint_type;
  return [...new Set([llmConfig.handle, provider ? `${provider}/${llmConfig.model}` : null, llmConfig.model].filter((name): name is string => Boolean(name)))];
}

/**
 * Per-organization model rate limits: an admin's override, else the registered model's defaults.
 * Requests are counted in PostgreSQL over a sliding minute, so every API process spends one budget.
 */
export function createModelRateLimitService(deps: { db: Database }) {
  const { db } = deps;

  async function requireOrganization(organizationId: string): Promise<void> {
    if (!(await Organization.query(db).findById(organizationId))) throw new NotFoundError('Organization');
  }

  async function limitFor(organizationId: string, model: InferenceModel): Promise<RateLimit> {
    const override = await OrganizationModelRateLimit.query(db).forOrg(organizationId).findOne({ model: model.name });
    return override
      ? { model: model.name, requestsPerMinute: override.requestsPerMinute, tokensPerMinute: override.tokensPerMinute }
      : { model: model.name, requestsPerMinute: model.defaultRequestsPerMinutePerOrganization, tokensPerMinute: model.defaultTokensPerMinutePerOrganization };
  }

  /** Seconds until the oldest request of the window leaves it, at least 1. */
  async function retryAfterSeconds(trx: Database, organizationId: string, model: string): Promise<number> {
    const row = await trx('model_requests')
      .where({ organization_id: organizationId, model })
      .min<{ oldest: Date | null }>({ oldest: 'requested_at' })
      .first();
    const [{ now }] = (await trx.raw<{ rows: Array<{ now: Date }> }>('select now() as now')).rows as [{ now: Date }];
    if (!row?.oldest) return 1;
    return Math.max(1, Math.ceil(WINDOW_SECONDS - (now.getTime() - new Date(row.oldest).getTime()) / 1000));
  }

  return {
    /** Every registered model's limit for the organization, overrides marked by being listed in `overrides`. */
    async list(organizationId: string): Promise<{ rateLimits: RateLimit[]; overrides: string[] }> {
      await requireOrganization(organizationId);
      const models = await InferenceModel.query(db).orderBy('name');
      const overrides = await OrganizationModelRateLimit.query(db).forOrg(organizationId);
      const byModel = new Map(overrides.map((override) => [override.model, override]));
      const rateLimits = models.map((model) => {
        const override = byModel.get(model.name);
        return override
          ? { model: model.name, requestsPerMinute: override.requestsPerMinute, tokensPerMinute: override.tokensPerMinute }
          : { model: model.name, requestsPerMinute: model.defaultRequestsPerMinutePerOrganization, tokensPerMinute: model.defaultTokensPerMinutePerOrganization };
      });
      return { rateLimits, overrides: overrides.map((override) => override.model) };
    },

    async set(organizationId: string, limit: RateLimit): Promise<RateLimit> {
      await requireOrganization(organizationId);
      if (!(await InferenceModel.query(db).findOne({ name: limit.model }))) throw new NotFoundError('Inference model');
      await OrganizationModelRateLimit.query(db)
        .insert({ organizationId, ...limit })
        .onConflict(['organization_id', 'model'])
        .merge(['requestsPerMinute', 'tokensPerMinute', 'updatedAt'] as never);
      return limit;
    },

    async remove(organizationId: string, model: string): Promise<void> {
      await requireOrganization(organizationId);
      const removed = await OrganizationModelRateLimit.query(db).forOrg(organizationId).where({ model }).delete();
      if (removed === 0) throw new NotFoundError('Rate limit');
    },

    /**
     * Admits one model request of the organization for a new run: refused when an admin disabled the
     * model, 429 with the seconds to wait when its requests or tokens of the last minute are spent.
     */
    async admit(organizationId: string, llmConfig: LlmConfig): Promise<void> {
      const model = await InferenceModel.query(db).whereIn('name', registryNamesOf(llmConfig)).first();
      if (!model) return;
      if (model.disabledAt) {
        throw new BadRequestError(`The model ${model.name} has been disabled by the platform administrators; choose another model for this agent.`);
      }
      const limit = await limitFor(organizationId, model);
      await db.transaction(async (trx) => {
        // One admission at a time per organization and model, whichever API process asks.
        await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`model-requests:${organizationId}:${model.name}`]);
        await trx('model_requests')
          .where({ organization_id: organizationId, model: model.name })
          .where('requested_at', '<=', trx.raw(`now() - interval '${WINDOW_SECONDS} seconds'`))
          .delete();
        const [counted] = await trx('model_requests').where({ organization_id: organizationId, model: model.name }).count<Array<{ count: string }>>({ count: '*' });
        if (Number(counted?.count ?? 0) >= limit.requestsPerMinute) {
          const wait = await retryAfterSeconds(trx, organizationId, model.name);
          throw new RateLimitedError(`Rate limit reached for ${model.name}: ${limit.requestsPerMinute} requests per minute. Retry in ${wait} s.`, wait);
        }
        const tokens = await trx('steps')
          .where({ organization_id: organizationId })
          .whereIn('model_handle', registryNamesOf(llmConfig))
          .where('created_at', '>', trx.raw(`now() - interval '${WINDOW_SECONDS} seconds'`))
          .sum<{ total: string | null }>({ total: 'total_tokens' })
          .first();
        const spent = Number(tokens?.total ?? 0);
        if (spent >= limit.tokensPerMinute) {
          throw new RateLimitedError(`Token rate limit reached for ${model.name}: ${limit.tokensPerMinute} tokens per minute. Retry in ${WINDOW_SECONDS} s.`, WINDOW_SECONDS);
        }
        await trx('model_requests').insert({ organization_id: organizationId, model: model.name });
      });
    },
  };
}

export type ModelRateLimitService = ReturnType<typeof createModelRateLimitService>;
