/** A card as the payment provider knows it (spec 000 §3 "Payment card", without Engram's own flags). */
export type CardDetails = {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  name: string | null;
  billingAddress: {
    address1: string | null;
    address2: string | null;
    city: string | null;
    state: string | null;
    postalCode: string | null;
    country: string | null;
  };
};

export type Charge = {
  amountCents: number;
  description: string;
  metadata: Record<string, string>;
  /** Derived from what the charge pays for: the provider performs one charge per key, however often it is sent. */
  idempotencyKey: string;
};

export type ChargeResult = { paymentIntentId: string; receiptUrl: string | null };

export type PaidTier = 'pro' | 'scale';

export type Subscription = {
  tier: PaidTier;
  monthlyAmountCents: number;
  /** Where the monthly cycle starts, so invoices fall on Engram's billing periods (the first of each month, UTC). */
  billingCycleAnchor: Date;
  metadata: Record<string, string>;
  idempotencyKey: string;
};

export type SubscriptionResult = {
  subscriptionId: string;
  invoiceId: string | null;
  amountPaidCents: number;
  receiptUrl: string | null;
};

/**
 * Why a payment failed: `declined` (the card was refused: ask for another), `transient` (the provider could not be
 * reached or failed: the same request may be sent again), `rejected` (the request itself was refused) and
 * `not_configured` (no provider: STRIPE_SECRET_KEY is unset). The message is the provider's own.
 */
export type PaymentFailureKind = 'declined' | 'transient' | 'rejected' | 'not_configured';

export class PaymentError extends Error {
  constructor(
    readonly kind: PaymentFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'PaymentError';
  }
}

/** The message every card operation answers while no provider is configured. */
export const PAYMENTS_NOT_CONFIGURED = 'Card payments are not configured on this server: set STRIPE_SECRET_KEY (and STRIPE_API_BASE for another Stripe endpoint)';

/** The payment provider: Stripe, or a stand-in that refuses everything when none is configured. */
export type PaymentGateway = {
  readonly configured: boolean;
  createCustomer(input: { organizationId: string; name: string; idempotencyKey: string }): Promise<string>;
  createSetupIntent(customerId: string): Promise<{ id: string; clientSecret: string }>;
  /** Confirms the setup intent with a payment method (a card from the client, or a test card such as `pm_card_visa`). */
  confirmCard(input: { customerId: string; setupIntentId: string; paymentMethodId: string }): Promise<CardDetails>;
  detachCard(paymentMethodId: string): Promise<void>;
  setDefaultCard(customerId: string, paymentMethodId: string): Promise<void>;
  /** An off-session charge of a saved card; resolves only once the money is taken. */
  charge(customerId: string, paymentMethodId: string, charge: Charge): Promise<ChargeResult>;
  subscribe(customerId: string, paymentMethodId: string, subscription: Subscription): Promise<SubscriptionResult>;
  /** Moves a subscription to another tier's price, invoicing the difference at once. */
  changeSubscriptionTier(subscriptionId: string, paymentMethodId: string, subscription: Subscription): Promise<SubscriptionResult>;
  setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean): Promise<void>;
};

/** The gateway without a provider: every operation fails with one error naming the variable to set. */
export const unconfiguredGateway: PaymentGateway = {
  configured: false,
  createCustomer: refuse,
  createSetupIntent: refuse,
  confirmCard: refuse,
  detachCard: refuse,
  setDefaultCard: refuse,
  charge: refuse,
  subscribe: refuse,
  changeSubscriptionTier: refuse,
  setCancelAtPeriodEnd: refuse,
};

async function refuse(): Promise<never> {
  throw new PaymentError('not_configured', PAYMENTS_NOT_CONFIGURED);
}
