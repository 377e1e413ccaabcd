export { healthCheckWorkflow } from './health/workflows.js';
