import type { Knex } from 'knex';
import type { LlmConfig } from '../models/agent.js';
import { InferenceModel, OrganizationModelRateLimit } from '../models/platform-admin.js';

/** Rate limits are per minute: requests and tokens are counted over the last 60 seconds. */
export const MODEL_CALL_WINDOW_SECONDS = 60;

export type ModelRateLimit = { model: string; requestsPerMinute: number; tokensPerMinute: number };

type ModelNames = Pick<LlmConfig, 'handle' | 'model' | 'provider_name' | 'model_endpoint_type'>;

/** The registry names an agent's model may go by: its handle, `<provider>/<model>`, or the bare model. */
export function registryNamesOf(llmConfig: ModelNames): string[] {
  const provider = llmConfig.provider_name ?? llmConfig.model_endpoint_type;
  return [...new Set([llmConfig.handle, provider ? `${provider}/${llmConfig.model}` : null, llmConfig.model].filter((name): name is string => Boolean(name)))];
}

/** The organization's limit for a registered model: an admin's override, else the model's defaults. */
export async function modelRateLimitFor(db: Knex, organizationId: string, model: InferenceModel): Promise<ModelRateLimit> {
  const override = await OrganizationModelRateLimit.query(db).forOrg(organizationId).findOne({ model: model.name });
  return override
    ? { model: model.name, requestsPerMinute: override.requestsPerMinute, tokensPerMinute: override.tokensPerMinute }
    : { model: model.name, requestsPerMinute: model.defaultRequestsPerMinutePerOrganization, tokensPerMinute: model.defaultTokensPerMinutePerOrganization };
}

export type ModelCall = {
  organizationId: string;
  llmConfig: ModelNames;
  runId: string;
  /**
   * null: the send's reservation of its run's first call. Otherwise one execution of a call
   * (`<step id>:<attempt>`): it claims the run's reservation if one is left, else takes a call of its own.
   */
  callKey: string | null;
  /** New runs are refused on a disabled model; calls of runs already admitted go on. */
  refuseDisabled: boolean;
};

export type ModelCallDecision =
  | { admitted: true }
  | { admitted: false; reason: 'disabled'; model: string }
  | { admitted: false; reason: 'requests' | 'tokens'; limit: ModelRateLimit; retryAfterSeconds: number };

const secondsLeftInWindow = (now: Date, oldest: Date) =>
  Math.max(1, Math.ceil(MODEL_CALL_WINDOW_SECONDS - (now.getTime() - oldest.getTime()) / 1000));

/**
 * Counts one model call of an organization against its per-model rate limit, in PostgreSQL so every API process
 * and worker spends one budget: refused while the model's calls (or tokens) of the last minute are spent, with the
 * seconds until the oldest of them leaves the window. A model outside the registry has no limit.
 */
export async function takeModelCall(db: Knex, call: ModelCall): Promise<ModelCallDecision> {
  const names = registryNamesOf(call.llmConfig);
  const model = await InferenceModel.query(db).whereIn('name', names).orderBy('name').first();
  if (!model) return { admitted: true };
  if (call.refuseDisabled && model.disabledAt) return { admitted: false, reason: 'disabled', model: model.name };
  const limit = await modelRateLimitFor(db, call.organizationId, model);
  return db.transaction(async (trx): Promise<ModelCallDecision> => {
    // One decision at a time per organization and model, whichever process asks.
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`model-requests:${call.organizationId}:${model.name}`]);
    const counted = () => trx('model_requests').where({ organization_id: call.organizationId, model: model.name });
    await counted().where('requested_at', '<=', trx.raw(`now() - make_interval(secs => ?)`, [MODEL_CALL_WINDOW_SECONDS])).delete();
    if (call.callKey !== null) {
      if (await counted().where({ call_key: call.callKey }).first()) return { admitted: true };
      const claimed = await trx('model_requests')
        .whereIn('id', counted().where({ run_id: call.runId }).whereNull('call_key').select('id').limit(1))
        .update({ call_key: call.callKey });
      if (claimed > 0) return { admitted: true };
    }
    const [{ now }] = (await trx.raw<{ rows: Array<{ now: Date }> }>('select now() as now')).rows as [{ now: Date }];
    const requests = (await counted().select(trx.raw('count(*) as count'), trx.raw('min(requested_at) as oldest')).first()) as { count: string; oldest: Date | null };
    if (Number(requests.count) >= limit.requestsPerMinute) {
      return { admitted: false, reason: 'requests', limit, retryAfterSeconds: requests.oldest ? secondsLeftInWindow(now, new Date(requests.oldest)) : 1 };
    }
    const tokens = (await trx('steps')
      .where({ organization_id: call.organizationId })
      .whereIn('model_handle', names)
      .where('created_at', '>', trx.raw(`now() - make_interval(secs => ?)`, [MODEL_CALL_WINDOW_SECONDS]))
      .select(trx.raw('coalesce(sum(total_tokens), 0) as total'), trx.raw('min(created_at) as oldest'))
      .first()) as { total: string; oldest: Date | null };
    if (Number(tokens.total) >= limit.tokensPerMinute) {
      return { admitted: false, reason: 'tokens', limit, retryAfterSeconds: tokens.oldest ? secondsLeftInWindow(now, new Date(tokens.oldest)) : 1 };
    }
    await trx('model_requests').insert({ organization_id: call.organizationId, model: model.name, run_id: call.runId, call_key: call.callKey });
    return { admitted: true };
  });
}

/** What a refused call tells its caller: the limit reached and when to try again. */
export function modelCallRefusal(decision: Extract<ModelCallDecision, { reason: 'requests' | 'tokens' }>): string {
  const { limit, retryAfterSeconds } = decision;
  return decision.reason === 'requests'
    ? `Rate limit reached for ${limit.model}: ${limit.requestsPerMinute} requests per minute. Retry in ${retryAfterSeconds} s.`
    : `Token rate limit reached for ${limit.model}: ${limit.tokensPerMinute} tokens per minute. Retry in ${retryAfterSeconds} s.`;
}
