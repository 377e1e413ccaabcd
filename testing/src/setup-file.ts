import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers log every state change at INFO; tests only want problems.
Runtime.install({ logger: new DefaultLogger('WARN') });
