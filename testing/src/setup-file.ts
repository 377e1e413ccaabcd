import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers log every state change at INFO; tests only want problems. Test files share a worker process, and this
// file runs before each of them: the runtime is installed by the first.
if (Runtime.instantiator === undefined) Runtime.install({ logger: new DefaultLogger('WARN') });
