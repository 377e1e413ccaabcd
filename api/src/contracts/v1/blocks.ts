import { z } from 'zod';
import { Metadata } from './agent-config.js';

/** The fields of a memory block, shared by the wire `Block` and the `FileBlock` an agent's files show as. */
export const blockFields = {
  id: z.string(),
  label: z.string(),
  value: z.string(),
  limit: z.number().int(),
  description: z.string().nullable(),
  metadata: Metadata,
  read_only: z.boolean(),
  hidden: z.boolean().nullable(),
  tags: z.array(z.string()),
  project_id: z.string().nullable(),
  is_template: z.boolean(),
  template_name: z.string().nullable(),
  template_id: z.string().nullable(),
  base_template_id: z.string().nullable(),
  deployment_id: z.string().nullable(),
  entity_id: z.string().nullable(),
  preserve_on_migration: z.boolean(),
  created_by_id: z.string().nullable(),
  last_updated_by_id: z.string().nullable(),
};

/** The wire `Block` (`BlockResponse` in the client). */
export const BlockResponse = z.object(blockFields).meta({ id: 'Block' });

export type BlockWire = z.infer<typeof BlockResponse>;
