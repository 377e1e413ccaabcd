/** Installs the tools the test suite needs that npm does not provide, once per machine. */
import { ensureTemporalCli } from '@engram/temporal';

const cli = ensureTemporalCli({ log: (line) => console.log(`[engram] ${line}`) });
console.log(`[engram] Temporal CLI: ${cli}`);
