export { createAutoTopUpActivities, type AutoTopUpActivities, type AutoTopUpDeps, type AutoTopUpInput, type AutoTopUpOutcome } from './auto-top-up.js';
