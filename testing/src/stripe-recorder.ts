import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureStripeMock, startStripeMock, type StripeMock } from './stripe-mock.js';

/** One request Engram sent to Stripe, as the recorder saw it. */
export type RecordedStripeRequest = {
  method: string;
  /** Without the query string: `/v1/payment_intents`. */
  path: string;
  idempotencyKey: string | null;
  /** The form-encoded body (or query) Stripe's SDK sent. */
  params: URLSearchParams;
};

export type StripeAnswer = { status: number; body: unknown };

type Interception = {
  match: (request: RecordedStripeRequest) => boolean;
  /** An answer instead of stripe-mock's, or `forward` to let stripe-mock answer after all (after a wait, say). */
  answer: (request: RecordedStripeRequest) => Promise<StripeAnswer | 'forward'> | StripeAnswer | 'forward';
};

export type StripeRecorder = {
  /** What STRIPE_API_BASE is set to. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedStripeRequest[];
  /** Requests matching `match` get `answer` until the returned function is called. */
  intercept(match: Interception['match'], answer: Interception['answer']): () => void;
  stop(): Promise<void>;
};

/** The test card with which Stripe declines every charge. */
export const DECLINED_TEST_CARD = 'pm_card_chargeDeclined';

const declined: StripeAnswer = {
  status: 402,
  body: { error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } },
};

const chargesWith = (method: string) => (request: RecordedStripeRequest) =>
  request.method === 'POST' &&
  ((request.path === '/v1/payment_intents' && request.params.get('payment_method') === method) ||
    (request.path.startsWith('/v1/subscriptions') && request.params.get('default_payment_method') === method));

/**
 * A recording HTTP proxy in front of stripe-mock. stripe-mock answers fixtures and keeps no state, so the tests check
 * the requests Engram sent here. Where stripe-mock cannot stand in for Stripe's test mode, the proxy answers as Stripe
 * does: a PaymentIntent created with `confirm=true` comes back `succeeded` (the fixture says `requires_payment_method`),
 * and the test card `pm_card_chargeDeclined` is declined with Stripe's `card_declined` error.
 */
export async function startStripeRecorder(upstream: string): Promise<StripeRecorder> {
  const requests: RecordedStripeRequest[] = [];
  const interceptions: Interception[] = [{ match: chargesWith(DECLINED_TEST_CARD), answer: () => declined }];

  const server = http.createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const url = new URL(incoming.url ?? '/', 'http://stripe.local');
        const header = incoming.headers['idempotency-key'];
        const recorded: RecordedStripeRequest = {
          method: incoming.method ?? 'GET',
          path: url.pathname,
          idempotencyKey: typeof header === 'string' ? header : null,
          params: new URLSearchParams(body.length > 0 ? body.toString('utf8') : url.search),
        };
        requests.push(recorded);
        const interception = [...interceptions].reverse().find((candidate) => candidate.match(recorded));
        const answer = interception ? await interception.answer(recorded) : 'forward';
        if (answer !== 'forward') {
          outgoing.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': 'req_recorder' });
          outgoing.end(JSON.stringify(answer.body));
          return;
        }
        const upstreamAnswer = await fetch(new URL(incoming.url ?? '/', upstream), {
          method: incoming.method,
          headers: Object.entries(incoming.headers).flatMap(([name, value]) =>
            typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name) ? [[name, value] as [string, string]] : [],
          ),
          body: body.length > 0 ? body : undefined,
        });
        let text = await upstreamAnswer.text();
        if (recorded.method === 'POST' && recorded.path === '/v1/payment_intents' && recorded.params.get('confirm') === 'true' && upstreamAnswer.ok) {
          text = JSON.stringify({ ...(JSON.parse(text) as object), status: 'succeeded', last_payment_error: null });
        }
        outgoing.writeHead(upstreamAnswer.status, { 'content-type': 'application/json', 'request-id': upstreamAnswer.headers.get('request-id') ?? 'req_mock' });
        outgoing.end(text);
      })().catch((error: unknown) => {
        outgoing.writeHead(502, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ error: { type: 'api_error', message: `recorder: ${String(error)}` } }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    intercept(match, answer) {
      const interception = { match, answer };
      interceptions.push(interception);
      return () => {
        const index = interceptions.indexOf(interception);
        if (index >= 0) interceptions.splice(index, 1);
      };
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type StripeTestServer = {
  recorder: StripeRecorder;
  /** What the API (`apiEnv`) and workers need to reach it. */
  env: { STRIPE_SECRET_KEY: string; STRIPE_API_BASE: string };
  stop(): Promise<void>;
};

/** stripe-mock (built once into the tool cache) behind the recorder, both on free loopback ports. */
export async function startStripeTestServer(): Promise<StripeTestServer> {
  const mock: StripeMock = await startStripeMock(ensureStripeMock({ log: (line) => console.log(`[stripe-mock] ${line}`) }));
  const recorder = await startStripeRecorder(mock.url);
  return {
    recorder,
    env: { STRIPE_SECRET_KEY: 'sk_test_engram', STRIPE_API_BASE: recorder.url },
    async stop() {
      await recorder.stop();
      await mock.stop();
    },
  };
}
