import { z } from 'zod';
import { Metadata } from './agent-config.js';

export const IDENTITY_TYPES = ['org', 'user', 'other'] as const;

export const IdentityType = z.enum(IDENTITY_TYPES);

/** A property's value must be of its declared type. */
export const IdentityProperty = z.discriminatedUnion('type', [
  z.strictObject({ key: z.string().min(1), type: z.literal('string'), value: z.string() }),
  z.strictObject({ key: z.string().min(1), type: z.literal('number'), value: z.number() }),
  z.strictObject({ key: z.string().min(1), type: z.literal('boolean'), value: z.boolean() }),
  z.strictObject({ key: z.string().min(1), type: z.literal('json'), value: Metadata }),
]);

/** The wire `Identity`, with the ids of the agents and blocks linked to it. */
export const IdentityResponse = z
  .object({
    id: z.string(),
    identifier_key: z.string(),
    name: z.string(),
    identity_type: IdentityType,
    project_id: z.string().nullable(),
    organization_id: z.string(),
    agent_ids: z.array(z.string()),
    block_ids: z.array(z.string()),
    properties: z.array(IdentityProperty),
  })
  .meta({ id: 'Identity' });

export type IdentityWire = z.infer<typeof IdentityResponse>;
