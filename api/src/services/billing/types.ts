import type { BillingTier, Payment, PaymentCard, TransactionType } from '@engram/db';

/** `ENGRAM_BILLING`: `off` meters every step but never refuses; `on` enforces tiers, quotas and credits. */
export type BillingMode = 'on' | 'off';

export type BillingInfo = {
  billingTier: BillingTier;
  totalCredits: number;
  recurrentCredits: number;
  isCancelled: boolean;
  billingPeriodEnd: string;
};

export type TransactionFilter = {
  type?: TransactionType | undefined;
  startDate?: Date | undefined;
  endDate?: Date | undefined;
};

export type UsageBucket = {
  date: string;
  model: string;
  credits: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
};

export type Usage = { used: number; limit: number | null };

/** A saved card with Engram's flags. */
export type CardView = { card: PaymentCard; isDefault: boolean; isExpired: boolean };

export type PurchaseResult = { payment: Payment; totalCredits: number };

/** Spec 000 §3 "Auto top-up"; every amount in credits. */
export type AutoTopUpSettings = { threshold: number; refillAmount: number; maxMonthlySpend: number | null; enabled: boolean };

/** The settings, and why auto top-up turned itself off (a declined card) while it is off. */
export type AutoTopUpState = AutoTopUpSettings & { disabledReason: string | null };
