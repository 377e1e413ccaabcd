import { z } from 'zod';
import type { BlockTemplate } from '@engram/db';
import { iso, PageQuery } from './schemas.js';

/** Spec 000 §3: id, entityId, label, value, limit, description, preserveOnMigration, readOnly, createdAt, updatedAt. */
export const BlockTemplateSchema = z.object({
  id: z.string(),
  /** The block's entity in templates: the block template itself, which agents' blocks made from it are linked by. */
  entityId: z.string(),
  label: z.string(),
  value: z.string(),
  limit: z.number(),
  description: z.string().nullable(),
  preserveOnMigration: z.boolean(),
  readOnly: z.boolean(),
  projectId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const LABEL_REQUIRED = 'Label is required';
const LIMIT_AT_LEAST_ONE = 'Limit must be at least 1';

/** Spec 000 §5: label required, limit an integer of at least 1 (default 1), readOnly false unless said. */
export const CreateBlockTemplateBody = z.object({
  label: z.string({ error: LABEL_REQUIRED }).trim().min(1, LABEL_REQUIRED),
  value: z.string().default(''),
  limit: z.number({ error: LIMIT_AT_LEAST_ONE }).int('Limit must be a whole number').min(1, LIMIT_AT_LEAST_ONE).default(1),
  description: z.string().nullish(),
  preserveOnMigration: z.boolean().nullish(),
  readOnly: z.boolean().default(false),
  projectId: z.string().optional(),
});

export const UpdateBlockTemplateBody = z.object({
  label: z.string({ error: LABEL_REQUIRED }).trim().min(1, LABEL_REQUIRED).optional(),
  value: z.string().optional(),
  limit: z.number({ error: LIMIT_AT_LEAST_ONE }).int('Limit must be a whole number').min(1, LIMIT_AT_LEAST_ONE).optional(),
  description: z.string().nullish(),
  preserveOnMigration: z.boolean().nullish(),
  readOnly: z.boolean().optional(),
});

export const BlockTemplateListQuery = PageQuery.extend({ projectId: z.string().optional() });

export const BlockTemplateParams = z.object({ blockTemplateId: z.string() });
export const AttachmentParams = z.object({ agentTemplateId: z.string(), blockTemplateId: z.string() });

export function blockTemplateToWire(blockTemplate: BlockTemplate): z.infer<typeof BlockTemplateSchema> {
  return {
    id: blockTemplate.id,
    entityId: blockTemplate.id,
    label: blockTemplate.label,
    value: blockTemplate.value,
    limit: blockTemplate.limit,
    description: blockTemplate.description,
    preserveOnMigration: blockTemplate.preserveOnMigration,
    readOnly: blockTemplate.readOnly,
    projectId: blockTemplate.projectId,
    createdAt: iso(blockTemplate.createdAt),
    updatedAt: iso(blockTemplate.updatedAt),
  };
}
