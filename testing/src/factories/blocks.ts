import { randomBytes } from 'node:crypto';
import { postV1, type ApiTarget } from './http.js';

export type CreatedBlock = { id: string; label: string; value: string } & Record<string, any>;

/** A label no other test uses, so list filters see only one test's blocks. */
export const uniqueBlockLabel = (prefix = 'b') => `${prefix}${randomBytes(4).toString('hex')}`;

/** Creates a memory block through `POST /v1/blocks/` (or `path`, e.g. `/_internal_blocks/`): a fresh label unless `fields` say otherwise. */
export function createBlock(target: ApiTarget, fields: Record<string, unknown> = {}, path = '/blocks/'): Promise<CreatedBlock> {
  return postV1<CreatedBlock>(target, path, { label: uniqueBlockLabel(), value: '', ...fields });
}
