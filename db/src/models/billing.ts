import { randomUUID } from 'node:crypto';
import { BaseModel, TenantModel } from './base-model.js';

export type TransactionType = 'addition' | 'subtraction';
/** `prepay`: credits are bought first and runs need them; `cpm`: usage is metered and invoiced afterwards. */
export type PricingModel = 'prepay' | 'cpm';
/** `stripe_managed`: cards through Stripe; `enterprise`: invoiced under a contract. */
export type BillingMethod = 'stripe_managed' | 'enterprise';
export type CreditModelTier = 'free' | 'premium' | 'per-inference';
export type TransactionSource =
  | 'inference'
  | 'monthly_grant'
  | 'purchase'
  | 'auto_top_up'
  | 'gift_code'
  | 'referral'
  | 'admin'
  | 'credit_expiry';

export const newTransactionId = () => `transaction-${randomUUID()}`;
export const newPaymentId = () => `payment-${randomUUID()}`;
export const newGiftCodeId = () => `gift_code-${randomUUID()}`;
export const newRedemptionId = () => `redemption-${randomUUID()}`;
export const newReferralId = () => `referral-${randomUUID()}`;

/** An organization's credit balance (kept equal to its ledger) and payment settings. */
export class BillingAccount extends TenantModel {
  static override tableName = 'billing_accounts';
  static override idColumn = 'organization_id';
  /** bigint arrives as a string from pg; read it with `Number(...)`. */
  declare creditBalance: string | number;
  declare isCancelled: boolean;
  /** When a plan cancelled at the period end stops; the billing period schedule ends it then. */
  declare cancelAt: Date | null;
  declare stripeCustomerId: string | null;
  declare stripeSubscriptionId: string | null;
  declare defaultPaymentMethodId: string | null;
  declare autoTopUpEnabled: boolean;
  declare autoTopUpThreshold: number | null;
  declare autoTopUpRefillAmount: number | null;
  declare autoTopUpMaxMonthlySpend: number | null;
  /** Why auto top-up turned itself off (the card was declined); cleared when it is turned on again. */
  declare autoTopUpFailure: string | null;
  declare referralCode: string | null;
  declare pricingModel: PricingModel;
  declare billingMethod: BillingMethod;
  /** When an admin last had the billing method re-read from the payment provider. */
  declare billingMethodRefreshedAt: Date | null;
  /** The month (`YYYY-MM`, UTC) the inference counters are of; metering starts them again in a later month. */
  declare usagePeriod: string | null;
  declare freeInferences: number;
  declare premiumInferences: number;
}

/** One entry of the credit ledger. Amounts are positive credits; `type` says which way they went. */
export class CreditTransaction extends TenantModel {
  static override tableName = 'transactions';
  static override jsonAttributes = ['metadata'];
  declare id: string;
  declare type: TransactionType;
  declare amount: string | number;
  declare trueCost: number | null;
  declare note: string | null;
  declare source: TransactionSource;
  declare stepId: string | null;
  declare modelTier: CreditModelTier | null;
  declare metadata: Record<string, unknown>;
  declare idempotencyKey: string | null;
  declare expiresAt: Date | null;
  /** When the expiry of this (granted) addition was dealt with by the billing period schedule. */
  declare expirySettledAt: Date | null;
}

export type StepCostEntry = { maxContextWindowSize: number; cost: number };

/** What a step of a model costs, by context window size (`version 1`). Not a tenant table. */
export class ModelStepCost extends BaseModel {
  static override tableName = 'model_step_costs';
  static override idColumn = 'model';
  static override jsonAttributes = ['costs'];
  declare model: string;
  declare modelTier: CreditModelTier;
  declare version: number;
  declare costs: StepCostEntry[];
}

export type PaymentKind = 'credit_purchase' | 'subscription' | 'auto_top_up';

/** `pending` from before the charge is sent until the money is taken (then `succeeded`, with its ledger addition). */
export type PaymentStatus = 'pending' | 'succeeded';

/** A charge made through Stripe, as the billing history lists it. */
export class Payment extends TenantModel {
  static override tableName = 'payments';
  declare id: string;
  declare kind: PaymentKind;
  declare status: PaymentStatus;
  declare amountCents: number;
  declare credits: number;
  declare description: string;
  declare paymentMethodId: string | null;
  declare stripePaymentIntentId: string | null;
  declare stripeInvoiceId: string | null;
  declare receiptUrl: string | null;
  /** What the charge pays for; Stripe gets the same key, so sending it again never charges twice. */
  declare idempotencyKey: string;
}

export type CardAddress = {
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  country: string | null;
};

/** A card the organization saved through a Stripe setup intent; `id` is the Stripe PaymentMethod id. */
export class PaymentCard extends TenantModel {
  static override tableName = 'payment_cards';
  static override idColumn = ['organization_id', 'id'];
  static override jsonAttributes = ['billingAddress'];
  declare id: string;
  declare brand: string;
  declare last4: string;
  declare expMonth: number;
  declare expYear: number;
  declare name: string | null;
  declare billingAddress: CardAddress;
}

/** A code that grants credits when an organization redeems it. Managed by platform admins; not a tenant table. */
export class GiftCode extends BaseModel {
  static override tableName = 'gift_codes';
  declare id: string;
  declare code: string;
  declare name: string;
  declare description: string;
  declare redemptionAmount: number;
  declare maxUses: number | null;
  declare maxUsesPerOrganization: number;
  declare uses: number;
  declare expiresAt: Date | null;
  declare disabledAt: Date | null;
  declare creditExpiryTimeMs: string | number | null;
}

export class GiftCodeRedemption extends TenantModel {
  static override tableName = 'gift_code_redemptions';
  declare id: string;
  declare giftCodeId: string;
  declare amount: number;
  declare transactionId: string;
}

/** The one row of the referral programme's settings. */
export class ReferralConfiguration extends BaseModel {
  static override tableName = 'referral_configuration';
  declare id: number;
  declare referrerRewardAmount: number;
  declare referredRewardAmount: number;
  declare maxReferralRewardPerOrg: number;
  declare enabled: boolean;
}

export class Referral extends BaseModel {
  static override tableName = 'referrals';
  declare id: string;
  declare referrerOrganizationId: string;
  declare referredOrganizationId: string;
  declare code: string;
  declare referrerReward: number;
  declare referredReward: number;
}
