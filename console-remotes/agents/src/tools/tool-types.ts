/* Wire shapes of custom tools that the editor's pure helpers share with its API calls. */

/** The languages custom tools are written in: Python derives its schema from the source, TypeScript brings one. */
export type ToolLanguage = 'python' | 'typescript';

/** A pip or npm requirement as the API writes it. */
export type PackageRequirement = { name: string; version?: string | null };

/** A tool's JSON schema: its name is the tool's name. */
export type ToolJsonSchema = {
  name: string;
  description?: string;
  parameters?: { type?: string; properties?: Record<string, unknown>; required?: string[] };
  [key: string]: unknown;
};
