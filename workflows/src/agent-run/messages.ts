import { defineSignal } from '@temporalio/workflow';
import type { QueuedRun } from './types.js';

/** Sent by the API (signal-with-start) for every new run of an agent; the queue runs them in arrival order. */
export const enqueueRunSignal = defineSignal<[QueuedRun]>('enqueueRun');
