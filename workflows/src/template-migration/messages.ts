import { defineSignal } from '@temporalio/workflow';

/** Stops the migration at the next agent boundary (the abort is also recorded in PostgreSQL for the activities). */
export const abortTemplateMigrationSignal = defineSignal('abortTemplateMigration');
