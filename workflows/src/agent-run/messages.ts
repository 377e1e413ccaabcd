import { defineSignal } from '@temporalio/workflow';
import type { QueuedRun, RunFinished } from './types.js';

/** Sent by the API of earlier releases (signal-with-start) for every new run of an agent; the queue runs them in arrival order. */
export const enqueueRunSignal = defineSignal<[QueuedRun]>('enqueueRun');

/** Sent by an agent's queue to the workflow a queued run named in `notify` (a group turn, a calling run) once the run ended. */
export const runFinishedSignal = defineSignal<[RunFinished]>('runFinished');

/**
 * Sent by a run as it ends to the next unfinished run of its conversation, whose turn may have come; a run waiting
 * for its turn also sends it to the run it waits for, to learn whether that run's workflow is still there.
 */
export const turnSignal = defineSignal('yourTurn');
