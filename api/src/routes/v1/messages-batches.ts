import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { internalMessageToWire } from '../../services/archival/archival-wire.js';
import { batchItemToWire, batchToWire } from '../../services/batches/batch-wire.js';
import { pageOf, pageQuery } from '../../contracts/shared/paging.js';
import { AsyncMessageBody, toRunRequest } from './agents/messages.js';
import { InternalMessageResponse } from '../../contracts/v1/internal-messages.js';
import { errorResponses } from './shared/error-responses.js';

const BatchParams = z.object({ batch_id: z.string() });

const BatchRequestItem = AsyncMessageBody.omit({ callback_url: true }).extend({ agent_id: z.string() });

const CreateBatchBody = z
  .object({
    requests: z.array(BatchRequestItem).min(1).max(10_000),
    callback_url: z.string().url().nullish(),
  })
  .strict();

const BatchStatus = z.enum(['created', 'running', 'completed', 'cancelled']);

/** The batch job, as the public API's `BatchJob`. */
export const BatchJobResponse = z
  .object({
    id: z.string(),
    status: BatchStatus,
    job_type: z.literal('batch'),
    agent_id: z.null(),
    user_id: z.string().nullable(),
    stop_reason: z.null(),
    background: z.boolean(),
    callback_url: z.string().nullable(),
    callback_sent_at: z.string().nullable(),
    callback_status_code: z.number().int().nullable(),
    callback_error: z.string().nullable(),
    ttft_ns: z.null(),
    total_duration_ns: z.number().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    request_config: z.null(),
    base_template_id: z.null(),
    created_at: z.string(),
    updated_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: 'BatchJob' });

const BatchItemResponse = z.object({
  id: z.string(),
  agent_id: z.string(),
  run_id: z.string().nullable(),
  status: z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']),
  position: z.number().int(),
});

const BatchMessagesQuery = z.object({ agent_id: z.string().optional(), ...pageQuery(100) });

export function messageBatchRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/messages/batches',
      {
        schema: {
          tags: ['messages'],
          summary: 'Send a batch of requests to agents; each runs as a normal run, the job returns at once',
          body: CreateBatchBody,
          response: { 200: BatchJobResponse, ...errorResponses(422) },
        },
      },
      async (request) => {
        const body = request.body;
        const requests = body.requests.map((item) => ({ agentId: item.agent_id, request: toRunRequest(item) }));
        return batchToWire(await services.batches.create(requireContext(request), requests, body.callback_url ?? null));
      },
    );

    app.get(
      '/messages/batches',
      { schema: { tags: ['messages'], summary: 'List message batches', querystring: z.object(pageQuery(50)), response: { 200: z.array(BatchJobResponse) } } },
      async (request) => (await services.batches.list(requireContext(request), pageOf(request.query, 'desc'))).map(batchToWire),
    );

    app.get(
      '/messages/batches/:batch_id',
      { schema: { tags: ['messages'], params: BatchParams, response: { 200: BatchJobResponse, ...errorResponses(404) } } },
      async (request) => batchToWire(await services.batches.get(requireContext(request), request.params.batch_id)),
    );

    app.get(
      '/messages/batches/:batch_id/items',
      {
        schema: {
          tags: ['messages'],
          summary: "Each request of a batch with its agent, run and status (Engram's per-item view)",
          params: BatchParams,
          response: { 200: z.array(BatchItemResponse), ...errorResponses(404) },
        },
      },
      async (request) => (await services.batches.items(requireContext(request), request.params.batch_id)).map(batchItemToWire),
    );

    app.get(
      '/messages/batches/:batch_id/messages',
      {
        schema: {
          tags: ['messages'],
          summary: "The messages of a batch's runs; each carries its batch_item_id",
          params: BatchParams,
          querystring: BatchMessagesQuery,
          response: { 200: z.object({ messages: z.array(InternalMessageResponse) }), ...errorResponses(404) },
        },
      },
      async (request) => {
        const query = request.query;
        const rows = await services.batches.messages(requireContext(request), request.params.batch_id, { agentId: query.agent_id }, pageOf(query, 'asc'));
        return { messages: rows.map(internalMessageToWire) };
      },
    );

    app.patch(
      '/messages/batches/:batch_id/cancel',
      {
        schema: {
          tags: ['messages'],
          summary: 'Cancel a batch: requests not started never start, running ones are cancelled',
          params: BatchParams,
          response: { 200: BatchJobResponse, ...errorResponses(404, 409) },
        },
      },
      async (request) => batchToWire(await services.batches.cancel(requireContext(request), request.params.batch_id)),
    );
  };
}
