import type { z } from 'zod';
import type { CreditTransaction, Payment } from '@engram/db';
import type { CardView } from '../../services/billing/types.js';
import type { BillingHistoryEntrySchema, PaymentCardSchema, TransactionSchema } from './billing-schema.js';
import { iso } from './schemas.js';

export const transactionWire = (transaction: CreditTransaction): z.infer<typeof TransactionSchema> => ({
  id: transaction.id,
  type: transaction.type,
  amount: Number(transaction.amount),
  trueCost: transaction.trueCost,
  note: transaction.note,
  source: transaction.source,
  stepId: transaction.stepId,
  modelTier: transaction.modelTier,
  createdAt: iso(transaction.createdAt),
  metadata: transaction.metadata,
});

export const cardWire = ({ card, isDefault, isExpired }: CardView): z.infer<typeof PaymentCardSchema> => ({
  id: card.id,
  last4: card.last4,
  expMonth: card.expMonth,
  expYear: card.expYear,
  brand: card.brand,
  billingAddress: {
    address1: card.billingAddress.address1 ?? null,
    address2: card.billingAddress.address2 ?? null,
    city: card.billingAddress.city ?? null,
    state: card.billingAddress.state ?? null,
    postalCode: card.billingAddress.postalCode ?? null,
    country: card.billingAddress.country ?? null,
  },
  isDefault,
  isExpired,
  name: card.name,
});

/** A charge as the billing history shows it: its amount in US dollars. */
export const billingHistoryWire = (payment: Payment): z.infer<typeof BillingHistoryEntrySchema> => ({
  id: payment.id,
  amount: payment.amountCents / 100,
  createdAt: iso(payment.createdAt),
  description: payment.description,
  receiptLink: payment.receiptUrl,
});
