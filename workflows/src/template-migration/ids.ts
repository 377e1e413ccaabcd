/** One workflow per migration; the console and the abort route address a migration by this id. */
export function templateMigrationWorkflowId(migrationId: string): string {
  return `template-migration-${migrationId}`;
}

export type TemplateMigrationInput = { organizationId: string; migrationId: string; abortRequested?: boolean };
