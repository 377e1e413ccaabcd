import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

/** Agent files with long histories are large, but an upload is read into memory whole. */
const MAX_AGENT_FILE_BYTES = 32 * 1024 * 1024;

/**
 * Lets the routes of one plugin take an agent file as a multipart upload: one file, read whole, reaching the body
 * schema as a Buffer whatever content type the client gave it. Register it in the plugin whose routes take the
 * upload only, so no other route accepts multipart bodies by accident.
 */
export async function acceptAgentFileUploads(app: FastifyInstance): Promise<void> {
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: MAX_AGENT_FILE_BYTES, files: 1 },
    async onFile(part: MultipartFile & { value?: unknown }) {
      part.value = await part.toBuffer();
    },
  });
}
