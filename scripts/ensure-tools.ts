/** Installs the tools the test suite needs that npm does not provide, once per machine. */
import { ensureTemporalCli } from '@engram/temporal';
import { ensureJaeger } from '@engram/testing/jaeger';
import { ensureStripeMock } from '@engram/testing/stripe-mock';

const cli = ensureTemporalCli({ log: (line) => console.log(`[engram] ${line}`) });
console.log(`[engram] Temporal CLI: ${cli}`);
// The OTLP export test sends spans to a real Jaeger; building it takes minutes once, so it is done here, not in a test.
console.log(`[engram] Jaeger: ${ensureJaeger({ log: (line) => console.log(`[engram] ${line}`) })}`);
// The payment tests send Engram's Stripe calls to stripe-mock, Stripe's API emulator (about a minute to build once).
console.log(`[engram] stripe-mock: ${ensureStripeMock({ log: (line) => console.log(`[engram] ${line}`) })}`);
