import { InferenceModel, modelCallRefusal, modelRateLimitFor, Organization, OrganizationModelRateLimit, takeModelCall, type Database, type LlmConfig, type ModelRateLimit } from '@engram/db';
import { BadRequestError, NotFoundError, RateLimitedError } from '../../errors.js';

export type RateLimit = ModelRateLimit;

/**
 * Per-organization model rate limits: an admin's override, else the registered model's defaults. They count model
 * calls (`takeModelCall` in @engram/db, shared with the worker): a send is admitted only while its first call fits,
 * and reserves it; every later call of the run is counted by the worker as it is made.
 */
export function createModelRateLimitService(deps: { db: Database }) {
  const { db } = deps;

  async function requireOrganization(organizationId: string): Promise<void> {
    if (!(await Organization.query(db).findById(organizationId))) throw new NotFoundError('Organization');
  }

  return {
    /** Every registered model's limit for the organization, overrides marked by being listed in `overrides`. */
    async list(organizationId: string): Promise<{ rateLimits: RateLimit[]; overrides: string[] }> {
      await requireOrganization(organizationId);
      const models = await InferenceModel.query(db).orderBy('name');
      const overrides = await OrganizationModelRateLimit.query(db).forOrg(organizationId);
      const rateLimits = await Promise.all(models.map((model) => modelRateLimitFor(db, organizationId, model)));
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
     * Admits a new run and reserves its first model call: refused when an admin disabled the model, 429 with the
     * seconds to wait when the organization's calls or tokens of the last minute for it are spent.
     */
    async admit(organizationId: string, runId: string, llmConfig: LlmConfig): Promise<void> {
      const decision = await takeModelCall(db, { organizationId, llmConfig, runId, callKey: null, refuseDisabled: true });
      if (decision.admitted) return;
      if (decision.reason === 'disabled') {
        throw new BadRequestError(`The model ${decision.model} has been disabled by the platform administrators; choose another model for this agent.`);
      }
      throw new RateLimitedError(modelCallRefusal(decision), decision.retryAfterSeconds);
    },
  };
}

export type ModelRateLimitService = ReturnType<typeof createModelRateLimitService>;
