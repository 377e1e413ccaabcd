import { defineSignal } from '@temporalio/workflow';

/** The balance went below the auto top-up threshold (a metered step), or auto top-up was turned on below it. */
export const balanceLowSignal = defineSignal('balanceLow');
