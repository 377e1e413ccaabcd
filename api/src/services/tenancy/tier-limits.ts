import { VISIBLE_AGENT, Organization, type BillingTier, type Database, VISIBLE_BLOCK } from '@engram/db';
import { NotFoundError, TierLimitError } from '../../errors.js';
import type { BillingMode } from '../billing/types.js';

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

const countRows =
  (table: string, only?: (query: ReturnType<Database>) => void) =>
  async (trx: Database, organizationId: string): Promise<number> => {
    const query = trx(table).where('organization_id', organizationId);
    only?.(query);
    const [row] = (await query.count({ n: '*' })) as Array<{ n: string }>;
    return Number(row?.n ?? 0);
  };

const MIB = 1024 * 1024;

/** Bytes as the plans word them: `1 GB`, `5 MB`. */
export function formatBytes(bytes: number): string {
  return bytes >= 1024 * MIB ? `${Math.round(bytes / (1024 * MIB))} GB` : `${Math.round(bytes / MIB)} MB`;
}

type LimitedResource = {
  limit: keyof TierLimits;
  /** The spec's console error code for this resource (spec 000 §8); `/v1` answers 402 `{message, limit}` whatever it is. */
  errorCode: 'usageLimit' | 'maxUsage' | 'projectLimitReached' | 'organizationMemberLimitReached';
  /** "Your plan allows …" */
  allowance: (limit: number) => string;
  /** What the organization holds now, in the limit's unit. */
  used: (trx: Database, organizationId: string) => Promise<number>;
};

/**
 * How each counted limit of the tier table is counted and refused: the one table every creation path and the
 * quotas read.
 */
export const LIMITED_RESOURCES = {
  // Hidden agents (a template's simulated agent, an evaluation's, a shared chat's visitors' copies) are not the organization's.
  agents: { limit: 'agents', errorCode: 'usageLimit', allowance: (n) => `${n} agents`, used: countRows('agents', (query) => void query.whereRaw(VISIBLE_AGENT)) },
  projects: { limit: 'projects', errorCode: 'projectLimitReached', allowance: (n) => `${n} projects`, used: countRows('projects') },
  dataSources: { limit: 'dataSources', errorCode: 'usageLimit', allowance: (n) => `${n} data sources`, used: countRows('sources') },
  templates: { limit: 'templates', errorCode: 'usageLimit', allowance: (n) => `${n} templates`, used: countRows('agent_templates') },
  tools: { limit: 'tools', errorCode: 'usageLimit', allowance: (n) => `${n} tools`, used: countRows('tools') },
  groups: { limit: 'groups', errorCode: 'usageLimit', allowance: (n) => `${n} groups`, used: countRows('groups', (query) => void query.where('managed', false)) },
  blocks: {
    limit: 'blocks',
    errorCode: 'maxUsage',
    allowance: (n) => `${n} memory blocks`,
    used: countRows('blocks', (query) => void query.where('is_template', false).whereRaw(VISIBLE_BLOCK)),
  },
  apiKeys: { limit: 'apiKeys', errorCode: 'maxUsage', allowance: (n) => `${n} API keys`, used: countRows('api_keys') },
  abTests: { limit: 'abTests', errorCode: 'usageLimit', allowance: (n) => `${n} A/B tests`, used: countRows('ab_tests') },
  // Pending invites hold a seat too.
  members: {
    limit: 'organizationMembers',
    errorCode: 'organizationMemberLimitReached',
    allowance: (n) => `${n} members`,
    used: async (trx, organizationId) =>
      (await countRows('organization_members')(trx, organizationId)) + (await countRows('organization_invites')(trx, organizationId)),
  },
  storage: {
    limit: 'storageBytes',
    errorCode: 'usageLimit',
    allowance: (n) => `${formatBytes(n)} of file storage`,
    used: async (trx, organizationId) => {
      const [row] = (await trx('files').where('organization_id', organizationId).sum({ bytes: 'file_size' })) as Array<{ bytes: string | null }>;
      return Number(row?.bytes ?? 0);
    },
  },
} as const satisfies Record<string, LimitedResource>;

export type LimitedResourceName = keyof typeof LIMITED_RESOURCES;

const MINUTE_MS = 60_000;

/**
 * The tier limits, enforced only when billing is on (ENGRAM_BILLING=on); off, every check passes. Checks run inside
 * the creating transaction, with the organization's row locked (`lockTierLimits`), so concurrent creations count one
 * another.
 */
export function createTierLimitGuard(deps: { mode: BillingMode }) {
  const enforced = deps.mode === 'on';

  return {
    enforced,

    /** Refuses `adding` more of `resource` beyond the tier's limit. */
    async assertWithinLimit(trx: Database, organizationId: string, resource: LimitedResourceName, adding = 1): Promise<void> {
      if (!enforced) return;
      const rule: LimitedResource = LIMITED_RESOURCES[resource];
      const limit = (await lockTierLimits(trx, organizationId))[rule.limit];
      if ((await rule.used(trx, organizationId)) + adding > limit) {
        throw new TierLimitError(rule.errorCode, `Your plan allows ${rule.allowance(limit)}`, limit);
      }
    },

    /** Whether one more `resource` fits, for paths that skip rather than refuse (joining by a verified domain). */
    async hasRoom(trx: Database, organizationId: string, resource: LimitedResourceName): Promise<boolean> {
      if (!enforced) return true;
      const rule: LimitedResource = LIMITED_RESOURCES[resource];
      const limit = (await lockTierLimits(trx, organizationId))[rule.limit];
      return (await rule.used(trx, organizationId)) < limit;
    },

    /**
     * A file of `bytes` may be stored: within the tier's file size and storage, and within its files and bytes per
     * minute (the organization's uploads of the last minute, refused with the seconds until enough of them age out).
     */
    async assertFileUpload(trx: Database, organizationId: string, bytes: number): Promise<void> {
      if (!enforced) return;
      const limits = await lockTierLimits(trx, organizationId);
      if (bytes > limits.fileSizeBytes) {
        throw new TierLimitError('usageLimit', `Your plan allows files of up to ${formatBytes(limits.fileSizeBytes)}`, limits.fileSizeBytes);
      }
      const stored = await LIMITED_RESOURCES.storage.used(trx, organizationId);
      if (stored + bytes > limits.storageBytes) {
        throw new TierLimitError('usageLimit', `Your plan allows ${LIMITED_RESOURCES.storage.allowance(limits.storageBytes)}`, limits.storageBytes);
      }
      // Newest first: the uploads of the last minute, with how long each has left in it (the database's clock).
      const recent = (await trx('files')
        .where('organization_id', organizationId)
        .whereRaw(`created_at > now() - interval '1 minute'`)
        .orderBy('created_at', 'desc')
        .select('file_size', trx.raw(`ceil(extract(epoch from (created_at + interval '1 minute' - now())) * 1000)::bigint as leaves_in_ms`))) as Array<{
        fileSize: string;
        leavesInMs: string;
      }>;
      const waitUntilFits = (fits: (kept: typeof recent) => boolean): number => {
        // Drop the oldest until what is left fits; the last one dropped says how long that takes.
        for (let keep = recent.length - 1; keep >= 0; keep--) {
          if (fits(recent.slice(0, keep))) return Math.max(1, Math.ceil(Number(recent[keep]!.leavesInMs) / 1000));
        }
        return Math.ceil(MINUTE_MS / 1000);
      };
      if (recent.length + 1 > limits.filesPerMinute) {
        const retryAfterSeconds = waitUntilFits((kept) => kept.length + 1 <= limits.filesPerMinute);
        throw new TierLimitError('usageLimit', `Your plan allows ${limits.filesPerMinute} file uploads a minute`, limits.filesPerMinute, retryAfterSeconds);
      }
      const bytesOf = (files: typeof recent) => files.reduce((sum, file) => sum + Number(file.fileSize), 0);
      if (bytesOf(recent) + bytes > limits.fileBytesPerMinute) {
        const retryAfterSeconds = waitUntilFits((kept) => bytesOf(kept) + bytes <= limits.fileBytesPerMinute);
        throw new TierLimitError(
          'usageLimit',
          `Your plan allows ${formatBytes(limits.fileBytesPerMinute)} of uploads a minute`,
          limits.fileBytesPerMinute,
          retryAfterSeconds,
        );
      }
    },
  };
}

export type TierLimitGuard = ReturnType<typeof createTierLimitGuard>;
