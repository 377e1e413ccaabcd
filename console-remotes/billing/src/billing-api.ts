import { sendJson } from '@engram/console-kit';
import type { Wire } from '@engram/console-kit/wire-types';

/** The organization's billing calls (spec 000 §7); all need `manage_billing` but the quotas. */
const API = '/api';
const SELF = `${API}/organizations/self`;

export type BillingInfo = Wire.BillingInfo;
export type Tier = BillingInfo['billingTier'];
export type PaidTier = 'pro' | 'scale';
export type FullQuotas = Wire.FullQuotas;
export type PaymentCard = Wire.PaymentCard;
export type BillingHistoryEntry = Wire.BillingHistoryEntry;
export type AutoTopUp = Wire.AutoTopUp;
export type AutoTopUpState = Wire.AutoTopUpState;
export type CreditTransaction = Wire.CreditTransaction;

/** One day and model of metered steps (`GET /transactions/usage-aggregation`). */
export type UsageBucket = { date: string; model: string; credits: number; requests: number; promptTokens: number; completionTokens: number };

export type Redemption = { code: string; amount: number; redeemedAt: string; transactionId: string };

export type ReferralStats = {
  code: string;
  usageCount: number;
  totalRewardsEarned: number;
  referredOrganizations: Array<{ id: string; name: string; referredAt: string }>;
};

export const billingApi = {
  billingInfo: () => sendJson<BillingInfo>(`${SELF}/billing-info`),
  quotas: () => sendJson<FullQuotas>(`${SELF}/quotas/full`),
  usage: (range: { startDate: string; endDate: string }) => sendJson<{ usage: UsageBucket[] }>(`${API}/transactions/usage-aggregation`, { query: range }),
  transactions: (page: { offset: number; limit: number }) =>
    sendJson<{ transactions: CreditTransaction[]; hasNextPage: boolean }>(`${API}/transactions`, { query: page }),

  cards: () => sendJson<{ methods: PaymentCard[] }>(`${SELF}/billing-info/methods`),
  setupIntent: () => sendJson<Wire.SetupIntent>(`${SELF}/setup-intent`),
  addCard: (input: { setupIntentId: string; paymentMethodId: string }) =>
    sendJson<PaymentCard>(`${SELF}/billing-info/methods`, { method: 'POST', json: input }),
  deleteCard: (id: string) => sendJson<unknown>(`${SELF}/billing-info/methods/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  setDefaultCard: (id: string) => sendJson<unknown>(`${SELF}/billing-info/methods/${encodeURIComponent(id)}/default`, { method: 'POST' }),

  /** `idempotencyKey` is made once per purchase the user asks for, so a resent request never charges twice. */
  buyCredits: (input: { credits: number; cardId: string }, idempotencyKey: string) =>
    sendJson<Wire.CreditPurchase>(`${SELF}/credits`, { method: 'POST', json: input, headers: { 'idempotency-key': idempotencyKey } }),
  upgrade: (input: { cardId: string; tier: PaidTier }) => sendJson<BillingInfo>(`${SELF}/upgrade`, { method: 'POST', json: input }),
  cancel: () => sendJson<BillingInfo>(`${SELF}/subscription`, { method: 'DELETE' }),
  resume: () => sendJson<BillingInfo>(`${SELF}/subscription/resume`, { method: 'POST' }),
  history: (cursor: string | null) =>
    sendJson<{ history: BillingHistoryEntry[]; nextCursor: string | null }>(`${SELF}/billing-history`, { query: { cursor, limit: 10 } }),

  autoTopUp: () => sendJson<AutoTopUpState>(`${SELF}/auto-top-up`),
  setAutoTopUp: (settings: AutoTopUp) => sendJson<AutoTopUpState>(`${SELF}/auto-top-up`, { method: 'PUT', json: settings }),

  redeem: (code: string) => sendJson<Redemption>(`${API}/gift-codes/redeem`, { method: 'POST', json: { code } }),
  referralCode: () => sendJson<{ code: string }>(`${API}/referral/code`),
  referralStats: () => sendJson<ReferralStats>(`${API}/referral/stats`),
  /** False for every code while the platform's referral programme is off. */
  validateReferral: (code: string) => sendJson<{ valid: boolean }>(`${API}/referral/validate`, { method: 'POST', json: { code } }),
};

/** Everything under `billing` is the organization's: a purchase or a plan change refreshes it all at once. */
export const billingKeys = {
  all: ['billing'] as const,
  info: ['billing', 'info'] as const,
  quotas: ['billing', 'quotas'] as const,
  usage: (startDate: string) => ['billing', 'usage', startDate] as const,
  cards: ['billing', 'cards'] as const,
  history: ['billing', 'history'] as const,
  autoTopUp: ['billing', 'auto-top-up'] as const,
  referral: ['billing', 'referral'] as const,
};

/** Spec 000 §9: 1 credit = $0.001. */
export const CREDIT_DOLLARS = 0.001;

/** What each paid tier costs a month and grants (spec 000 §9). */
export const PAID_TIERS: Array<{ tier: PaidTier; name: string; monthlyDollars: number; monthlyCredits: number }> = [
  { tier: 'pro', name: 'Pro', monthlyDollars: 20, monthlyCredits: 20_000 },
  { tier: 'scale', name: 'Scale', monthlyDollars: 750, monthlyCredits: 0 },
];

export const TIER_NAMES: Record<Tier, string> = { free: 'Free', pro: 'Pro', scale: 'Scale', enterprise: 'Enterprise' };
