/** Installs the tools the test suite needs that npm does not provide, once per machine. */
import { ensureTemporalCli } from '@engram/temporal/dev-server';
import { ensureJaeger } from '@engram/testing/jaeger';
import { ensureTemporalServer } from '@engram/testing/temporal-cluster';
import { ensureStripeMock } from '@engram/testing/stripe-mock';

const log = (line: string) => console.log(`[engram] ${line}`);
const cli = ensureTemporalCli({ log });
console.log(`[engram] Temporal CLI: ${cli}`);
// The scale-out test runs the Temporal server with PostgreSQL persistence; built after the CLI, it reuses the CLI's compiled packages.
console.log(`[engram] Temporal server: ${ensureTemporalServer({ log }).server}`);
// The OTLP export test sends spans to a real Jaeger; building it takes minutes once, so it is done here, not in a test.
console.log(`[engram] Jaeger: ${ensureJaeger({ log })}`);
// The payment tests send Engram's Stripe calls to stripe-mock, Stripe's API emulator (about a minute to build once).
console.log(`[engram] stripe-mock: ${ensureStripeMock({ log })}`);
