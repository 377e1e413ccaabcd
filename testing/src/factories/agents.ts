import { postV1, type ApiTarget } from './http.js';

/** The model every factory agent uses unless told otherwise (the stack's scripted `openai` provider serves it). */
export const TEST_MODEL = 'openai/gpt-4o-mini';

export type CreatedAgent = { id: string; name: string } & Record<string, any>;

/** Creates an agent through `POST /v1/agents/`: `model` is the test model unless `fields` say otherwise. */
export function createAgent(target: ApiTarget, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<CreatedAgent> {
  return postV1<CreatedAgent>(target, '/agents/', { model: TEST_MODEL, ...fields }, headers);
}
