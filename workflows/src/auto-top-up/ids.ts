/** One top-up workflow per organization at a time: a balance that drops below the threshold signals this one. */
export function autoTopUpWorkflowId(organizationId: string): string {
  return `auto-top-up-${organizationId}`;
}

export type AutoTopUpWorkflowInput = { organizationId: string };
