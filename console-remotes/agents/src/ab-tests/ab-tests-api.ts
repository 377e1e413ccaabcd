import { CONSOLE_API, send, sendJson } from '@engram/console-kit';
import type { Wire } from '@engram/console-kit/wire-types';

/*
 * The console API of A/B tests (api/src/routes/console/ab-tests.ts): thin functions, one per route, with the
 * generated wire shapes of what those routes answer.
 */

export type AbTest = Wire.AbTest;
export type AbTestArm = Wire.AbTestTemplate;
export type AbTestArmResult = Wire.AbTestArmResult;
export type AbTestResults = { abTest: AbTest; arms: AbTestArmResult[]; winner: { abTestTemplateId: string; pValue: number } | null };

const api = (suffix: string) => `${CONSOLE_API}${suffix}`;
const segment = encodeURIComponent;
const abTestPath = (abTestId: string, suffix = '') => api(`/ab-tests/${segment(abTestId)}${suffix}`);

export const abTestsApi = {
  list: (query: { search?: string; projectId?: string; offset: number; limit: number }) =>
    sendJson<{ abTests: AbTest[]; hasNextPage: boolean }>(api('/ab-tests'), { query }),
  get: (abTestId: string) => sendJson<AbTest>(abTestPath(abTestId)),
  create: (body: { name: string; description: string | null; projectId: string }) => sendJson<AbTest>(api('/ab-tests'), { method: 'POST', json: body }),
  delete: (abTestId: string) => send(abTestPath(abTestId), { method: 'DELETE' }),

  arms: (abTestId: string) => sendJson<{ templates: AbTestArm[] }>(abTestPath(abTestId, '/templates')),
  attach: (abTestId: string, body: { templateName: string; weight: number; memoryVariables: Record<string, string> }) =>
    sendJson<AbTestArm>(abTestPath(abTestId, '/templates'), { method: 'POST', json: body }),
  setWeight: (abTestId: string, armId: string, weight: number) =>
    sendJson<AbTestArm>(abTestPath(abTestId, `/templates/${segment(armId)}`), { method: 'PATCH', json: { weight } }),
  detach: (abTestId: string, armId: string) => send(abTestPath(abTestId, `/templates/${segment(armId)}`), { method: 'DELETE' }),

  results: (abTestId: string) => sendJson<AbTestResults>(abTestPath(abTestId, '/results')),
  stop: (abTestId: string, promote: boolean) =>
    sendJson<{ abTest: AbTest; migrationWorkflowId: string | null }>(abTestPath(abTestId, '/stop'), { method: 'POST', json: { promote } }),
};
