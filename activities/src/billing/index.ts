export { createAutoTopUpActivities, type AutoTopUpActivities, type AutoTopUpDeps, type AutoTopUpInput, type AutoTopUpOutcome } from './auto-top-up.js';
export { createBillingPeriodActivities, type BillingPeriodActivities } from './billing-periods.js';
