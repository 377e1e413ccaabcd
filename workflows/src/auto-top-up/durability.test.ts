import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreditTransaction, Payment, PaymentCard } from '@engram/db';
import { startTestStack, startWorkerProcess, type ManagedProcess, type TestStack } from '@engram/testing';
import { startStripeTestServer, type StripeTestServer } from '@engram/testing/stripe-recorder';

let stripe: StripeTestServer;
let stack: TestStack;
const processes: ManagedProcess[] = [];

beforeAll(async () => {
  stripe = await startStripeTestServer();
  stack = await startTestStack({ inProcessWorker: false, apiEnv: stripe.env });
}, 120_000);

afterAll(async () => {
  await Promise.all(processes.map((managed) => managed.kill()));
  await stack?.stop();
  await stripe?.stop();
});

function worker(): ManagedProcess {
  const managed = startWorkerProcess(stack.workerEnv);
  processes.push(managed);
  return managed;
}

describe('an auto top-up survives the death of its worker mid-charge', () => {
  it('sends the charge again with the same idempotency key on another worker, and books one addition', async () => {
    const { organizationId } = stack.tenant;
    const { services } = stack;
    await PaymentCard.query(stack.db).insert({
      organizationId,
      id: 'pm_card_visa',
      brand: 'visa',
      last4: '4242',
      expMonth: 12,
      expYear: 2099,
      name: null,
      billingAddress: {},
    } as unknown as PaymentCard);
    await services.payments.setDefaultCard(organizationId, 'pm_card_visa');

    // The first charge request is held at the proxy until the worker that sent it is dead; then Stripe gets it.
    let arrived!: () => void;
    const chargeArrived = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold = stripe.recorder.intercept(
      (request) => request.path === '/v1/payment_intents' && request.params.get('metadata[organizationId]') === organizationId,
      async () => {
        hold();
        arrived();
        await released;
        return 'forward' as const;
      },
    );

    const first = worker();
    // The new organization's 5000 credits are below the threshold: saving the settings asks for a top-up.
    await services.autoTopUps.set(organizationId, { threshold: 6000, refillAmount: 2000, maxMonthlySpend: null, enabled: true });
    await chargeArrived;
    await first.kill();
    release();
    worker();

    const result = await stack.temporal.workflow.getHandle(`auto-top-up-${organizationId}`).result();
    expect(result).toEqual({ topUps: 1 });

    const charges = stripe.recorder.requests.filter(
      (request) => request.path === '/v1/payment_intents' && request.params.get('metadata[organizationId]') === organizationId,
    );
    expect(charges).toHaveLength(2);
    expect(new Set(charges.map((charge) => charge.idempotencyKey)).size).toBe(1);
    expect(charges[0]!.params.get('metadata[paymentId]')).toBe(charges[1]!.params.get('metadata[paymentId]'));

    const additions = await CreditTransaction.query(stack.db).forOrg(organizationId).where('source', 'auto_top_up');
    expect(additions.map((addition) => Number(addition.amount))).toEqual([2000]);
    expect(await Payment.query(stack.db).forOrg(organizationId).where({ kind: 'auto_top_up', status: 'succeeded' }).resultSize()).toBe(1);
    expect(await services.billing.balance(organizationId)).toBe(5000 + 2000);
  }, 180_000);
});
