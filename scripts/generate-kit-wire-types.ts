import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { OpenAPIV3_1 } from 'openapi-types';
import { KIT_WIRE_TYPES_PATH, wireTypesSource } from '@engram/testing/client-contract/wire-types-source';
import type { JsonSchema } from '@engram/testing/client-contract/schema-agreement';
// Importing the app registers every named route schema, which is what /openapi.json lists as its components.
import '@engram/api/app';

/**
 * Writes the console kit's wire types from the components /openapi.json serves: the same transform the API's
 * document uses, run over the same schemas, without a server.
 */
const document = jsonSchemaTransformObject({
  openapiObject: { openapi: '3.1.0', info: { title: 'Engram API', version: 'generated' }, paths: {} },
} as Parameters<typeof jsonSchemaTransformObject>[0]) as OpenAPIV3_1.Document;
const schemas = (document.components?.schemas ?? {}) as Record<string, JsonSchema>;
const target = fileURLToPath(new URL(`../${KIT_WIRE_TYPES_PATH}`, import.meta.url));
writeFileSync(target, wireTypesSource(schemas));
console.log(`[engram] wrote ${Object.keys(schemas).filter((name) => !name.endsWith('Input')).length} wire types to ${KIT_WIRE_TYPES_PATH}`);
