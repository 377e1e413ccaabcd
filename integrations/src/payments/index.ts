export { parsePaymentsConfig, PaymentsConfigError, type PaymentsConfig } from './config.js';
export {
  PaymentError,
  PAYMENTS_NOT_CONFIGURED,
  unconfiguredGateway,
  type CardDetails,
  type Charge,
  type ChargeResult,
  type PaidTier,
  type PaymentFailureKind,
  type PaymentGateway,
  type Subscription,
  type SubscriptionResult,
} from './gateway.js';
export { createPaymentGateway } from './stripe-gateway.js';
export {
  CREDITS_PER_CENT,
  MIN_PURCHASE_CREDITS,
  ensureCustomer,
  isPurchasableCredits,
  purchaseCredits,
  type CompletedPurchase,
  type CreditPurchase,
} from './purchases.js';
