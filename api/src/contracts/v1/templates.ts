import { z } from 'zod';
import type { TemplateView } from '../../services/templates/types.js';

/** The Cloud API's template (`TemplateCreateResponse`, `TemplateSaveResponse`, list entries). */
export const TemplateResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    latest_version: z.string(),
    project_id: z.string(),
    project_slug: z.string(),
    template_deployment_slug: z.string(),
    updated_at: z.string(),
    description: z.string().optional(),
  })
  .meta({ id: 'Template' });

export const TemplateVersionResponse = z
  .object({ version: z.string(), created_at: z.string(), message: z.string().optional(), is_latest: z.boolean() })
  .meta({ id: 'TemplateVersion' });

export const SuccessResponse = z.object({ success: z.boolean(), message: z.string().optional() });

export const CreateAgentsResponse = z.object({
  agent_ids: z.array(z.string()),
  deployment_id: z.string(),
  group_id: z.string().nullable(),
});

export const MigrationResponse = z
  .object({
    workflow_id: z.string(),
    status: z.enum(['running', 'completed', 'aborted', 'failed']),
    template_version: z.string(),
    total: z.number(),
    migrated: z.number(),
    failed: z.number(),
    untouched: z.number(),
    started_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: 'TemplateMigration' });

export function templateToWire(view: TemplateView): z.infer<typeof TemplateResponse> {
  const { template } = view;
  return {
    id: template.id,
    name: template.name,
    latest_version: String(template.latestVersion),
    project_id: template.projectId,
    project_slug: view.projectSlug,
    template_deployment_slug: `${view.projectSlug}/${template.name}:${template.latestVersion}`,
    updated_at: template.updatedAt.toISOString(),
    ...(template.description !== null ? { description: template.description } : {}),
  };
}
