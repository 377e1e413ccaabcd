/** One workflow per import run; the API and the console address a run by this id. */
export function lettaImportWorkflowId(importId: string): string {
  return `letta-import-${importId}`;
}

export type LettaImportInput = { organizationId: string; importId: string };
