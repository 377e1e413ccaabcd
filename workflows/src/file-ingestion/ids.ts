/** One ingestion per file: starting it again while it runs is a no-op, and a finished one can be re-run. */
export function fileIngestionWorkflowId(fileId: string): string {
  return `file-ingestion-${fileId}`;
}

export type FileIngestionInput = { organizationId: string; fileId: string };
