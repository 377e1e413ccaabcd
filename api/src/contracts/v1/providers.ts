import { z } from 'zod';
import { ProviderCategory, ProviderType } from './models.js';

/** The wire `Provider`. Keys are only ever shown masked; the sealed forms never leave the database. */
export const ProviderResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    provider_type: ProviderType,
    provider_category: ProviderCategory,
    api_key: z.string().nullable(),
    access_key: z.string().nullable(),
    base_url: z.string().nullable(),
    region: z.string().nullable(),
    api_version: z.string().nullable(),
    organization_id: z.string(),
    updated_at: z.string(),
    last_synced: z.null(),
    api_key_enc: z.null(),
    access_key_enc: z.null(),
  })
  .meta({ id: 'Provider' });

export type ProviderWire = z.infer<typeof ProviderResponse>;
