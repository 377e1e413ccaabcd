import Stripe from 'stripe';
import type { PaymentsConfig } from './config.js';
import { PaymentError, unconfiguredGateway, type CardDetails, type PaidTier, type PaymentGateway } from './gateway.js';

/** Engram's monthly tier prices are found in Stripe by these lookup keys, and created there on first use. */
const PRICE_LOOKUP_KEYS: Record<PaidTier, string> = { pro: 'engram_pro_monthly', scale: 'engram_scale_monthly' };

/** The SDK retries a call that failed on the network with the same idempotency key; a worker's retry does the rest. */
const NETWORK_RETRIES = 2;

function asPaymentError(error: unknown): unknown {
  if (!(error instanceof Stripe.errors.StripeError)) return error;
  if (error instanceof Stripe.errors.StripeCardError) return new PaymentError('declined', error.message);
  if (
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    error instanceof Stripe.errors.StripeAPIError
  ) {
    return new PaymentError('transient', error.message);
  }
  return new PaymentError('rejected', error.message);
}

async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw asPaymentError(error);
  }
}

function cardOf(method: Stripe.PaymentMethod): CardDetails {
  if (!method.card) throw new PaymentError('rejected', 'Only cards can be saved');
  const address = method.billing_details.address;
  return {
    id: method.id,
    brand: method.card.brand,
    last4: method.card.last4,
    expMonth: method.card.exp_month,
    expYear: method.card.exp_year,
    name: method.billing_details.name,
    billingAddress: {
      address1: address?.line1 ?? null,
      address2: address?.line2 ?? null,
      city: address?.city ?? null,
      state: address?.state ?? null,
      postalCode: address?.postal_code ?? null,
      country: address?.country ?? null,
    },
  };
}

function subscriptionResult(subscription: Stripe.Subscription) {
  const invoice = typeof subscription.latest_invoice === 'object' ? subscription.latest_invoice : null;
  return {
    subscriptionId: subscription.id,
    invoiceId: invoice?.id ?? null,
    amountPaidCents: invoice?.amount_paid ?? 0,
    receiptUrl: invoice?.hosted_invoice_url ?? null,
  };
}

function receiptOf(charge: string | Stripe.Charge | null): string | null {
  return charge !== null && typeof charge === 'object' ? (charge.receipt_url ?? null) : null;
}

/** The payment gateway through Stripe's official SDK; without a configuration, the gateway that refuses. */
export function createPaymentGateway(config: PaymentsConfig): PaymentGateway {
  if (!config) return unconfiguredGateway;
  const stripe = new Stripe(config.secretKey, {
    maxNetworkRetries: NETWORK_RETRIES,
    appInfo: { name: 'Engram' },
    ...(config.apiBase
      ? {
          host: config.apiBase.hostname,
          port: config.apiBase.port || (config.apiBase.protocol === 'https:' ? 443 : 80),
          protocol: config.apiBase.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
  const prices = new Map<PaidTier, Promise<string>>();

  /** One lookup per tier and process; a failed one is forgotten, so the next call asks again. */
  function cachedPriceOf(tier: PaidTier, monthlyAmountCents: number): Promise<string> {
    let price = prices.get(tier);
    if (!price) {
      price = priceOf(tier, monthlyAmountCents);
      prices.set(tier, price);
      price.catch(() => prices.delete(tier));
    }
    return price;
  }

  async function priceOf(tier: PaidTier, monthlyAmountCents: number): Promise<string> {
    const lookupKey = PRICE_LOOKUP_KEYS[tier];
    const found = (await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 })).data[0];
    if (found) return found.id;
    const created = await stripe.prices.create(
      {
        currency: 'usd',
        unit_amount: monthlyAmountCents,
        recurring: { interval: 'month' },
        lookup_key: lookupKey,
        product_data: { name: `Engram ${tier === 'pro' ? 'Pro' : 'Scale'}` },
      },
      { idempotencyKey: `price:${lookupKey}:${monthlyAmountCents}` },
    );
    return created.id;
  }

  return {
    configured: true,

    createCustomer: (input) =>
      call(async () => {
        const customer = await stripe.customers.create(
          { name: input.name, metadata: { organizationId: input.organizationId } },
          { idempotencyKey: input.idempotencyKey },
        );
        return customer.id;
      }),

    createSetupIntent: (customerId) =>
      call(async () => {
        const intent = await stripe.setupIntents.create({ customer: customerId, usage: 'off_session' });
        if (!intent.client_secret) throw new PaymentError('rejected', 'Stripe returned a setup intent without a client secret');
        return { id: intent.id, clientSecret: intent.client_secret };
      }),

    confirmCard: (input) =>
      call(async () => {
        const intent = await stripe.setupIntents.confirm(input.setupIntentId, { payment_method: input.paymentMethodId });
        const methodId = typeof intent.payment_method === 'string' ? intent.payment_method : (intent.payment_method?.id ?? input.paymentMethodId);
        return cardOf(await stripe.paymentMethods.retrieve(methodId));
      }),

    detachCard: (paymentMethodId) =>
      call(async () => {
        await stripe.paymentMethods.detach(paymentMethodId);
      }),

    setDefaultCard: (customerId, paymentMethodId) =>
      call(async () => {
        await stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId } });
      }),

    charge: (customerId, paymentMethodId, charge) =>
      call(async () => {
        const intent = await stripe.paymentIntents.create(
          {
            amount: charge.amountCents,
            currency: 'usd',
            customer: customerId,
            payment_method: paymentMethodId,
            off_session: true,
            confirm: true,
            description: charge.description,
            metadata: charge.metadata,
            expand: ['latest_charge'],
          },
          { idempotencyKey: charge.idempotencyKey },
        );
        if (intent.status === 'succeeded' || intent.status === 'processing') {
          return { paymentIntentId: intent.id, receiptUrl: receiptOf(intent.latest_charge) };
        }
        throw new PaymentError(
          'declined',
          intent.last_payment_error?.message ??
            (intent.status === 'requires_action' ? 'The card needs the cardholder to authenticate this payment' : 'The card was declined'),
        );
      }),

    subscribe: (customerId, paymentMethodId, subscription) =>
      call(async () => {
        const created = await stripe.subscriptions.create(
          {
            customer: customerId,
            items: [{ price: await cachedPriceOf(subscription.tier, subscription.monthlyAmountCents) }],
            default_payment_method: paymentMethodId,
            // The first invoice is paid now or the subscription is not created at all.
            payment_behavior: 'error_if_incomplete',
            billing_cycle_anchor: Math.floor(subscription.billingCycleAnchor.getTime() / 1000),
            proration_behavior: 'create_prorations',
            metadata: subscription.metadata,
            expand: ['latest_invoice'],
          },
          { idempotencyKey: subscription.idempotencyKey },
        );
        return subscriptionResult(created);
      }),

    changeSubscriptionTier: (subscriptionId, paymentMethodId, subscription) =>
      call(async () => {
        const current = await stripe.subscriptions.retrieve(subscriptionId);
        const item = current.items.data[0];
        if (!item) throw new PaymentError('rejected', 'The subscription has no plan to change');
        const changed = await stripe.subscriptions.update(
          subscriptionId,
          {
            items: [{ id: item.id, price: await cachedPriceOf(subscription.tier, subscription.monthlyAmountCents) }],
            default_payment_method: paymentMethodId,
            cancel_at_period_end: false,
            proration_behavior: 'always_invoice',
            payment_behavior: 'error_if_incomplete',
            metadata: subscription.metadata,
            expand: ['latest_invoice'],
          },
          { idempotencyKey: subscription.idempotencyKey },
        );
        return subscriptionResult(changed);
      }),

    setCancelAtPeriodEnd: (subscriptionId, cancel) =>
      call(async () => {
        await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: cancel });
      }),
  };
}
