import { BASE_TOOLS } from '@engram/core';
import type { Knex } from 'knex';
import { newId } from '../ids.js';
import { Tool } from '../models/tool.js';

const BASE_TOOL_TYPES: ReadonlySet<string> = new Set(BASE_TOOLS.map((tool) => tool.toolType));

/**
 * The organization's rows for the built-in tools, created on first use. Built-in tools are ordinary `tools`
 * rows so agents attach them by id like any other tool. Safe to call concurrently: a name an organization
 * already has is left as it is, so a custom tool that took a built-in name is never overwritten (and is not
 * returned, since it is not a built-in tool).
 */
export async function ensureBaseTools(db: Knex, organizationId: string): Promise<Map<string, Tool>> {
  const names = BASE_TOOLS.map((tool) => tool.name);
  let existing = await Tool.query(db).forOrg(organizationId).whereIn('name', names);
  if (existing.length < names.length) {
    const present = new Set(existing.map((tool) => tool.name));
    const missing = BASE_TOOLS.filter((tool) => !present.has(tool.name));
    await Tool.query(db)
      .insert(
        missing.map((tool) => ({
          id: newId('tool'),
          organizationId,
          name: tool.name,
          toolType: tool.toolType,
          description: tool.description,
          sourceType: 'python',
          jsonSchema: tool.jsonSchema,
          tags: [],
          metadata: {},
        })),
      )
      .onConflict(['organizationId', 'name'])
      .ignore();
    existing = await Tool.query(db).forOrg(organizationId).whereIn('name', names);
  }
  return new Map(existing.filter((tool) => BASE_TOOL_TYPES.has(tool.toolType)).map((tool) => [tool.name, tool]));
}
