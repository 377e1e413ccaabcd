/** One workflow per dataset run. */
export function datasetRunWorkflowId(datasetRunId: string): string {
  return `dataset-run-${datasetRunId}`;
}

export type DatasetRunInput = {
  organizationId: string;
  datasetRunId: string;
  /** Most items running at once. */
  concurrency: number;
  /** Items dispatched and not settled yet, carried over a continue-as-new. */
  inFlight?: string[];
};
