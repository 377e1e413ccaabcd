import type { Tool } from '@engram/console-kit';
import type { ToolExecutionResult } from '../ade-api.js';
import { keysetQuery, segment, v1Json, type KeysetPage } from '../v1-request.js';
import type { PackageRequirement, ToolJsonSchema, ToolLanguage } from './tool-types.js';

export type { PackageRequirement, ToolJsonSchema, ToolLanguage };

/** The wire `Tool` with what the editor reads beyond the kit's shape. */
export type FullTool = Tool & {
  source_type: string | null;
  source_code: string | null;
  json_schema: ToolJsonSchema;
  return_char_limit: number;
  pip_requirements: PackageRequirement[] | null;
  npm_requirements: PackageRequirement[] | null;
};

/** What the editor saves; the name is not sent, the schema carries it. */
export type ToolDraft = {
  source_type: ToolLanguage;
  source_code: string;
  /** TypeScript only: a Python tool's schema is derived from its source. */
  json_schema?: ToolJsonSchema;
  description?: string | null;
  tags: string[];
  pip_requirements: PackageRequirement[] | null;
  npm_requirements: PackageRequirement[] | null;
  return_char_limit: number;
  default_requires_approval: boolean;
};

/** Which tools a list shows; the API's `tool_types` filter. */
export type ToolListFilter = { search?: string; tool_types?: string[]; return_only_letta_tools?: boolean };

export function listTools(filter: ToolListFilter, page: KeysetPage) {
  return v1Json<FullTool[]>('/tools/', { query: { ...filter, ...keysetQuery(page) } });
}

export function getTool(toolId: string) {
  return v1Json<FullTool>(`/tools/${segment(toolId)}`);
}

export function createTool(draft: ToolDraft) {
  return v1Json<FullTool>('/tools/', { method: 'POST', json: draft });
}

export function updateTool(toolId: string, draft: Partial<ToolDraft>) {
  return v1Json<FullTool>(`/tools/${segment(toolId)}`, { method: 'PATCH', json: draft });
}

/** Deletes the tool; every agent that had it loses it. */
export function deleteTool(toolId: string) {
  return v1Json<null>(`/tools/${segment(toolId)}`, { method: 'DELETE' });
}

/** The schema the API derives from a Python function (its signature and docstring). */
export function generatePythonSchema(code: string) {
  return v1Json<ToolJsonSchema>('/tools/generate-schema', { method: 'POST', json: { code, source_type: 'python' } });
}

export type ToolSourceRun = {
  source_code: string;
  source_type: ToolLanguage;
  args: Record<string, unknown>;
  name?: string;
  json_schema?: ToolJsonSchema;
  pip_requirements?: PackageRequirement[] | null;
  npm_requirements?: PackageRequirement[] | null;
};

/** Runs source in the organization's sandbox with the arguments, saving nothing. */
export function runToolSource(run: ToolSourceRun) {
  return v1Json<ToolExecutionResult>('/tools/run', { method: 'POST', json: run });
}
