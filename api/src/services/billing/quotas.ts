import { billingPeriod } from '@engram/core';
import { BillingAccount, Organization, priceOfStep, VISIBLE_IDENTITY, type Agent, type Database } from '@engram/db';
import { NotFoundError, TierLimitError } from '../../errors.js';
import { LIMITED_RESOURCES, TIER_LIMITS, type LimitedResourceName, type TierLimits } from '../tenancy/tier-limits.js';
import type { BillingMode, Usage } from './types.js';

/** This month's model requests of each tier, as metering counts them beside the balance. */
function inferencesOf(account: BillingAccount | undefined, now: Date): { free: number; premium: number } {
  if (!account || account.usagePeriod !== billingPeriod(now).key) return { free: 0, premium: 0 };
  return { free: account.freeInferences, premium: account.premiumInferences };
}

/**
 * Usage against the tier's limits, for the quota screens, and the admission of runs: a run whose organization cannot
 * pay for its first step, or whose tier's monthly allowance of the model's requests is used up, is refused before any
 * model call when billing is on. What is created is checked by the tier limit guard (`tenancy/tier-limits.ts`).
 */
export function createQuotaService(deps: { db: Database; mode: BillingMode; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  async function limitsOf(organizationId: string): Promise<TierLimits> {
    const organization = await Organization.query(db).findById(organizationId).select('billingTier');
    if (!organization) throw new NotFoundError('Organization');
    return TIER_LIMITS[organization.billingTier];
  }

  async function usage(organizationId: string, limits: TierLimits, resource: LimitedResourceName): Promise<Usage> {
    const rule = LIMITED_RESOURCES[resource];
    return { used: await rule.used(db, organizationId), limit: limits[rule.limit] };
  }

  async function modelRequests(organizationId: string, limits: TierLimits) {
    const inferences = inferencesOf(await BillingAccount.query(db).forOrg(organizationId).first(), now());
    return {
      freeModelRequests: { used: inferences.free, limit: limits.freeInferencesPerMonth },
      premiumModelRequests: { used: inferences.premium, limit: limits.premiumInferencesPerMonth },
    };
  }

  return {
    async quotas(organizationId: string) {
      const limits = await limitsOf(organizationId);
      return { ...(await modelRequests(organizationId, limits)), agents: await usage(organizationId, limits, 'agents') };
    },

    async fullQuotas(organizationId: string) {
      const limits = await limitsOf(organizationId);
      const requests = await modelRequests(organizationId, limits);
      const [agents, projects, dataSources, templates, tools, memoryBlocks, storage, apiKeys, members, identities] = await Promise.all([
        usage(organizationId, limits, 'agents'),
        usage(organizationId, limits, 'projects'),
        usage(organizationId, limits, 'dataSources'),
        usage(organizationId, limits, 'templates'),
        usage(organizationId, limits, 'tools'),
        usage(organizationId, limits, 'blocks'),
        usage(organizationId, limits, 'storage'),
        usage(organizationId, limits, 'apiKeys'),
        usage(organizationId, limits, 'members'),
        db('identities')
          .where('organization_id', organizationId)
          .whereRaw(VISIBLE_IDENTITY)
          .count({ n: '*' })
          .then((rows) => Number((rows[0] as { n: string }).n)),
      ]);
      return {
        ...requests,
        agents,
        // The tier table sets no limit on identities.
        identities: { used: identities, limit: null },
        projects,
        dataSources,
        templates,
        tools,
        premiumInferencesPerMonth: requests.premiumModelRequests,
        freeInferencesPerMonth: requests.freeModelRequests,
        storage,
        memoryBlocks,
        apiKeys,
        members,
      } satisfies Record<string, { used: number; limit: number | null }>;
    },

    /**
     * Refuses a run before any model call when billing is on and the organization cannot pay for its first step
     * (the balance is below the step's cost), or the month's requests of the model's tier have reached the tier's
     * allowance. An allowance of 0 (pro) means that tier pays for every request with credits alone; a per-inference
     * model has no allowance. A run admitted finishes its steps: the allowance is checked per run.
     */
    async admitRun(organizationId: string, llmConfig: Agent['llmConfig']): Promise<void> {
      if (deps.mode === 'off') return;
      const price = await priceOfStep(db, { model: llmConfig.model, modelHandle: llmConfig.handle ?? null, contextWindow: llmConfig.context_window });
      const account = await BillingAccount.query(db).forOrg(organizationId).first();
      const balance = Number(account?.creditBalance ?? 0);
      // Under the `cpm` pricing model (set by platform admins) usage is invoiced afterwards: the balance may go below zero.
      if (account?.pricingModel !== 'cpm' && balance < price.cost) {
        throw new TierLimitError('usageLimit', `Not enough credits: a step of ${llmConfig.handle ?? llmConfig.model} costs ${price.cost}, ${balance} left`, balance);
      }
      if (price.modelTier === 'per-inference') return;
      const limits = await limitsOf(organizationId);
      const allowance = price.modelTier === 'premium' ? limits.premiumInferencesPerMonth : limits.freeInferencesPerMonth;
      const used = inferencesOf(account, now())[price.modelTier];
      if (allowance > 0 && used >= allowance) {
        throw new TierLimitError('usageLimit', `Your plan allows ${allowance} ${price.modelTier} model requests a month`, allowance);
      }
    },
  };
}

export type QuotaService = ReturnType<typeof createQuotaService>;
