import { Organization, type BillingTier, type Database } from '@engram/db';
import { NotFoundError } from '../../errors.js';

export type TierLimits = {
  monthlyCostDollars: number;
  providers: number;
  agents: number;
  projects: number;
  dataSources: number;
  templates: number;
  tools: number;
  groups: number;
  blocks: number;
  premiumInferencesPerMonth: number;
  freeInferencesPerMonth: number;
  storageBytes: number;
  apiKeys: number;
  abTests: number;
  organizationMembers: number;
  filesPerMinute: number;
  fileSizeBytes: number;
  fileBytesPerMinute: number;
};

const MB = 1024 * 1024;
const GB = 1024 * MB;

/** Spec 000 §9, the one table every limit check reads. */
export const TIER_LIMITS: Record<BillingTier, TierLimits> = {
  free: {
    monthlyCostDollars: 0,
    providers: 5,
    agents: 100,
    projects: 25,
    dataSources: 25,
    templates: 10,
    tools: 300,
    groups: 1,
    blocks: 5000,
    premiumInferencesPerMonth: 50,
    freeInferencesPerMonth: 500,
    storageBytes: GB,
    apiKeys: 25,
    abTests: 10,
    organizationMembers: 4,
    filesPerMinute: 10,
    fileSizeBytes: 5 * MB,
    fileBytesPerMinute: 5 * MB,
  },
  pro: {
    monthlyCostDollars: 20,
    providers: 5,
    agents: 10_000_000,
    projects: 100,
    dataSources: 10_000_000,
    templates: 20,
    tools: 300,
    groups: 10,
    blocks: 100_000_000,
    premiumInferencesPerMonth: 0,
    freeInferencesPerMonth: 0,
    storageBytes: 10 * GB,
    apiKeys: 1000,
    abTests: 1000,
    organizationMembers: 10,
    filesPerMinute: 150,
    fileSizeBytes: 25 * MB,
    fileBytesPerMinute: 25 * MB,
  },
  scale: {
    monthlyCostDollars: 750,
    providers: 50,
    agents: 10_000_000,
    projects: 100,
    dataSources: 1000,
    templates: 100,
    tools: 300,
    groups: 10,
    blocks: 1_000_000_000,
    premiumInferencesPerMonth: 5000,
    freeInferencesPerMonth: 50_000,
    storageBytes: 100 * GB,
    apiKeys: 5000,
    abTests: 10_000,
    organizationMembers: 10_000,
    filesPerMinute: 1500,
    fileSizeBytes: 25 * MB,
    fileBytesPerMinute: 100 * MB,
  },
  enterprise: {
    // "Very large" in the spec: no practical ceiling.
    monthlyCostDollars: Number.MAX_SAFE_INTEGER,
    providers: 50,
    agents: 500_000_000,
    projects: 10_000,
    dataSources: 5_000_000,
    templates: 2000,
    tools: 300,
    groups: 10,
    blocks: 500_000_000,
    premiumInferencesPerMonth: 1e12,
    freeInferencesPerMonth: 1e9,
    storageBytes: 100 * GB,
    apiKeys: 100_000,
    abTests: 1e8,
    organizationMembers: 10_000,
    filesPerMinute: 10_000,
    fileSizeBytes: 100 * MB,
    fileBytesPerMinute: 100 * MB,
  },
};

/**
 * The organization's limits, read with its row locked for the transaction: concurrent creations in
 * one organization then count one another instead of both slipping under the limit.
 */
export async function lockTierLimits(trx: Database, organizationId: string): Promise<TierLimits> {
  const organization = await Organization.query(trx).findById(organizationId).select('billingTier').forUpdate();
  if (!organization) throw new NotFoundError('Organization');
  return TIER_LIMITS[organization.billingTier];
}
