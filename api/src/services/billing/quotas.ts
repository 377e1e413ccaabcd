import { BillingAccount, CreditTransaction, Organization, priceOfStep, type Agent, type Database } from '@engram/db';
import { NotFoundError, TierLimitError } from '../../errors.js';
import { lockTierLimits, TIER_LIMITS, type TierLimits } from '../tenancy/tier-limits.js';
import { billingPeriod } from '@engram/core';
import type { BillingMode } from './types.js';

export type QuotaUsage = { used: number; limit: number | null };

/** What is counted against a tier limit, and how to count it in the organization's rows. */
const COUNTED = {
  agents: { table: 'agents', limit: 'agents', label: 'agents' },
  projects: { table: 'projects', limit: 'projects', label: 'projects' },
  dataSources: { table: 'sources', limit: 'dataSources', label: 'data sources' },
  memoryBlocks: { table: 'blocks', limit: 'blocks', label: 'memory blocks' },
  tools: { table: 'tools', limit: 'tools', label: 'tools' },
} as const satisfies Record<string, { table: string; limit: keyof TierLimits; label: string }>;

export type CountedResource = keyof typeof COUNTED;

export function createQuotaService(deps: { db: Database; mode: BillingMode; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  async function limitsOf(trx: Database, organizationId: string): Promise<TierLimits> {
    const organization = await Organization.query(trx).findById(organizationId).select('billingTier');
    if (!organization) throw new NotFoundError('Organization');
    return TIER_LIMITS[organization.billingTier];
  }

  async function count(trx: Database, organizationId: string, resource: CountedResource): Promise<number> {
    const query = trx(COUNTED[resource].table).where('organization_id', organizationId);
    if (resource === 'memoryBlocks') void query.where('is_template', false);
    const [row] = (await query.count({ n: '*' })) as Array<{ n: string }>;
    return Number(row?.n ?? 0);
  }

  async function inferencesThisPeriod(trx: Database, organizationId: string): Promise<{ free: number; premium: number }> {
    const rows = (await CreditTransaction.query(trx)
      .forOrg(organizationId)
      .where('source', 'inference')
      .where('createdAt', '>=', billingPeriod(now()).start)
      .groupBy('modelTier')
      .select('modelTier')
      .count({ n: '*' })) as unknown as Array<{ modelTier: string; n: string }>;
    const of = (tier: string) => Number(rows.find((row) => row.modelTier === tier)?.n ?? 0);
    return { free: of('free'), premium: of('premium') };
  }

  async function storageBytes(trx: Database, organizationId: string): Promise<number> {
    const [row] = (await trx('files').where('organization_id', organizationId).sum({ bytes: 'file_size' })) as Array<{ bytes: string | null }>;
    return Number(row?.bytes ?? 0);
  }

  return {
    enforced: deps.mode === 'on',

    async quotas(organizationId: string) {
      const limits = await limitsOf(db, organizationId);
      const inferences = await inferencesThisPeriod(db, organizationId);
      return {
        freeModelRequests: { used: inferences.free, limit: limits.freeInferencesPerMonth },
        premiumModelRequests: { used: inferences.premium, limit: limits.premiumInferencesPerMonth },
        agents: { used: await count(db, organizationId, 'agents'), limit: limits.agents },
      };
    },

    async fullQuotas(organizationId: string) {
      const limits = await limitsOf(db, organizationId);
      const inferences = await inferencesThisPeriod(db, organizationId);
      const [agents, projects, dataSources, memoryBlocks, identities, storage] = await Promise.all([
        count(db, organizationId, 'agents'),
        count(db, organizationId, 'projects'),
        count(db, organizationId, 'dataSources'),
        count(db, organizationId, 'memoryBlocks'),
        db('identities').where('organization_id', organizationId).count({ n: '*' }).then((rows) => Number((rows[0] as { n: string }).n)),
        storageBytes(db, organizationId),
      ]);
      return {
        freeModelRequests: { used: inferences.free, limit: limits.freeInferencesPerMonth },
        premiumModelRequests: { used: inferences.premium, limit: limits.premiumInferencesPerMonth },
        agents: { used: agents, limit: limits.agents },
        identities: { used: identities, limit: null },
        projects: { used: projects, limit: limits.projects },
        dataSources: { used: dataSources, limit: limits.dataSources },
        premiumInferencesPerMonth: { used: inferences.premium, limit: limits.premiumInferencesPerMonth },
        freeInferencesPerMonth: { used: inferences.free, limit: limits.freeInferencesPerMonth },
        storage: { used: storage, limit: limits.storageBytes },
        memoryBlocks: { used: memoryBlocks, limit: limits.blocks },
      } satisfies Record<string, QuotaUsage>;
    },

    /**
     * Refuses one more `resource` beyond the tier's limit when billing is on (`usageLimit` with the limit on the
     * console, 402 on `/v1`). Call it inside the creating transaction after `lockTierLimits`, so concurrent
     * creations count one another.
     */
    async assertCanCreate(trx: Database, organizationId: string, resource: CountedResource, adding = 1): Promise<void> {
      if (deps.mode === 'off') return;
      const limits = await lockTierLimits(trx, organizationId);
      const limit = limits[COUNTED[resource].limit];
      if ((await count(trx, organizationId, resource)) + adding > limit) {
        throw new TierLimitError('usageLimit', `Your plan allows ${limit} ${COUNTED[resource].label}`, limit);
      }
    },

    /**
     * Refuses a run before any model call when billing is on and the organization cannot pay for its first step:
     * the balance is below the step's cost, or this period's inferences of the model's tier have reached the tier's
     * monthly allowance (an allowance of 0 means the tier pays for those by credits alone).
     */
    async admitRun(organizationId: string, llmConfig: Agent['llmConfig']): Promise<void> {
      if (deps.mode === 'off') return;
      const price = await priceOfStep(db, { model: llmConfig.model, modelHandle: llmConfig.handle ?? null, contextWindow: llmConfig.context_window });
      const balance = Number((await BillingAccount.query(db).forOrg(organizationId).first())?.creditBalance ?? 0);
      if (balance < price.cost) {
        throw new TierLimitError('usageLimit', `Not enough credits: a step of ${llmConfig.handle ?? llmConfig.model} costs ${price.cost}, ${balance} left`, balance);
      }
      if (price.modelTier === 'per-inference') return;
      const limits = await limitsOf(db, organizationId);
      const allowance = price.modelTier === 'premium' ? limits.premiumInferencesPerMonth : limits.freeInferencesPerMonth;
      const used = (await inferencesThisPeriod(db, organizationId))[price.modelTier];
      if (allowance > 0 && used >= allowance) {
        throw new TierLimitError('usageLimit', `Your plan allows ${allowance} ${price.modelTier} model requests a month`, allowance);
      }
    },
  };
}

export type QuotaService = ReturnType<typeof createQuotaService>;
