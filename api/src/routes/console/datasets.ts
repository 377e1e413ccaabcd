import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { itemFields, summarize } from '../../services/datasets/dataset-service.js';
import {
  CompareRunsQuery,
  CreateDatasetBody,
  CreateDatasetItemBody,
  DatasetItemParams,
  DatasetItemSchema,
  DatasetListQuery,
  DatasetParams,
  DatasetRunParams,
  DatasetRunResultSchema,
  DatasetRunSchema,
  DatasetRunSummarySchema,
  DatasetSchema,
  ImportDatasetItemsBody,
  StartDatasetRunBody,
  UpdateDatasetBody,
  UpdateDatasetItemBody,
  datasetItemToWire,
  datasetResultToWire,
  datasetRunToWire,
  datasetToWire,
  summaryToWire,
} from './datasets-schema.js';
import { PageQuery, success, Success } from './schemas.js';

const ItemPageQuery = PageQuery.omit({ search: true });

/** Datasets and their items (spec 000 §7: CRUD), JSONL import and export, and runs against template versions. */
export function datasetRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['console: datasets'];

    app.get(
      '/datasets',
      { schema: { tags, querystring: DatasetListQuery, response: { 200: z.object({ datasets: z.array(DatasetSchema), hasNextPage: z.boolean() }) } } },
      async (request) => {
        const page = await services.datasets.list(requireContext(request), request.query);
        return { datasets: page.datasets.map(datasetToWire), hasNextPage: page.hasNextPage };
      },
    );

    app.post('/datasets', { schema: { tags, body: CreateDatasetBody, response: { 201: DatasetSchema } } }, async (request, reply) => {
      const { body } = request;
      const created = await services.datasets.create(requireContext(request), { name: body.name, description: body.description ?? null, projectId: body.projectId });
      return reply.code(201).send(datasetToWire(created));
    });

    app.get('/datasets/:datasetId', { schema: { tags, params: DatasetParams, response: { 200: DatasetSchema } } }, async (request) =>
      datasetToWire(await services.datasets.get(requireContext(request), request.params.datasetId)),
    );

    app.patch(
      '/datasets/:datasetId',
      { schema: { tags, params: DatasetParams, body: UpdateDatasetBody, response: { 200: DatasetSchema } } },
      async (request) => datasetToWire(await services.datasets.update(requireContext(request), request.params.datasetId, request.body)),
    );

    app.delete('/datasets/:datasetId', { schema: { tags, params: DatasetParams, response: { 200: Success } } }, async (request) => {
      await services.datasets.delete(requireContext(request), request.params.datasetId);
      return success;
    });

    app.get(
      '/datasets/:datasetId/items',
      {
        schema: {
          tags,
          params: DatasetParams,
          querystring: ItemPageQuery,
          response: { 200: z.object({ items: z.array(DatasetItemSchema), hasNextPage: z.boolean(), total: z.number() }) },
        },
      },
      async (request) => {
        const page = await services.datasets.listItems(requireContext(request), request.params.datasetId, request.query);
        return { items: page.items.map(datasetItemToWire), hasNextPage: page.hasNextPage, total: page.total };
      },
    );

    app.post(
      '/datasets/:datasetId/items',
      { schema: { tags, params: DatasetParams, body: CreateDatasetItemBody, response: { 201: DatasetItemSchema } } },
      async (request, reply) => {
        const created = await services.datasets.createItem(requireContext(request), request.params.datasetId, itemFields(request.body));
        return reply.code(201).send(datasetItemToWire(created));
      },
    );

    app.post(
      '/datasets/:datasetId/items/import',
      {
        schema: {
          tags,
          summary: 'Add the items of a JSONL text, one item per line',
          params: DatasetParams,
          body: ImportDatasetItemsBody,
          response: { 201: z.object({ imported: z.number() }) },
        },
      },
      async (request, reply) => {
        const imported = await services.datasets.importItems(requireContext(request), request.params.datasetId, request.body.jsonl);
        return reply.code(201).send({ imported: imported.length });
      },
    );

    app.get(
      '/datasets/:datasetId/items/export',
      { schema: { tags, summary: 'The items as JSONL, one item per line', params: DatasetParams, response: { 200: z.string() } } },
      async (request, reply) => {
        const { dataset, jsonl } = await services.datasets.exportItems(requireContext(request), request.params.datasetId);
        const fileName = `${dataset.name.replace(/[^A-Za-z0-9_-]+/g, '_') || 'dataset'}.jsonl`;
        return reply
          .type('application/x-ndjson; charset=utf-8')
          .header('content-disposition', `attachment; filename="${fileName}"`)
          .serializer((text: unknown) => String(text))
          .send(jsonl);
      },
    );

    app.get('/datasets/:datasetId/items/:datasetItemId', { schema: { tags, params: DatasetItemParams, response: { 200: DatasetItemSchema } } }, async (request) =>
      datasetItemToWire(await services.datasets.getItem(requireContext(request), request.params.datasetId, request.params.datasetItemId)),
    );

    app.patch(
      '/datasets/:datasetId/items/:datasetItemId',
      { schema: { tags, params: DatasetItemParams, body: UpdateDatasetItemBody, response: { 200: DatasetItemSchema } } },
      async (request) =>
        datasetItemToWire(await services.datasets.updateItem(requireContext(request), request.params.datasetId, request.params.datasetItemId, request.body)),
    );

    app.delete('/datasets/:datasetId/items/:datasetItemId', { schema: { tags, params: DatasetItemParams, response: { 200: Success } } }, async (request) => {
      await services.datasets.deleteItem(requireContext(request), request.params.datasetId, request.params.datasetItemId);
      return success;
    });

    app.get(
      '/datasets/:datasetId/runs',
      { schema: { tags, params: DatasetParams, response: { 200: z.object({ runs: z.array(DatasetRunSchema) }) } } },
      async (request) => ({ runs: (await services.datasets.listRuns(requireContext(request), request.params.datasetId)).map(datasetRunToWire) }),
    );

    app.post(
      '/datasets/:datasetId/runs',
      {
        schema: {
          tags,
          summary: 'Run every item against a saved template version, each on a fresh agent of its own',
          params: DatasetParams,
          body: StartDatasetRunBody,
          response: { 201: DatasetRunSchema },
        },
      },
      async (request, reply) => {
        const view = await services.datasets.startRun(requireContext(request), request.params.datasetId, request.body);
        return reply.code(201).send(datasetRunToWire(view));
      },
    );

    app.get(
      '/dataset-runs/compare',
      {
        schema: {
          tags,
          summary: 'Two runs of a dataset side by side, item by item',
          querystring: CompareRunsQuery,
          response: {
            200: z.object({
              base: z.object({ run: DatasetRunSchema, summary: DatasetRunSummarySchema }),
              other: z.object({ run: DatasetRunSchema, summary: DatasetRunSummarySchema }),
              rows: z.array(z.object({ item: DatasetItemSchema, base: DatasetRunResultSchema.nullable(), other: DatasetRunResultSchema.nullable() })),
            }),
          },
        },
      },
      async (request) => {
        const compared = await services.datasets.compareRuns(requireContext(request), request.query.base, request.query.other);
        return {
          base: { run: datasetRunToWire(compared.base.view), summary: summaryToWire(compared.base.summary) },
          other: { run: datasetRunToWire(compared.other.view), summary: summaryToWire(compared.other.summary) },
          rows: compared.rows.map((row) => ({
            item: datasetItemToWire(row.item),
            base: row.base ? datasetResultToWire(row.base) : null,
            other: row.other ? datasetResultToWire(row.other) : null,
          })),
        };
      },
    );

    app.get(
      '/dataset-runs/:datasetRunId',
      {
        schema: {
          tags,
          params: DatasetRunParams,
          response: { 200: z.object({ run: DatasetRunSchema, summary: DatasetRunSummarySchema, results: z.array(DatasetRunResultSchema) }) },
        },
      },
      async (request) => {
        const { view, results } = await services.datasets.getRun(requireContext(request), request.params.datasetRunId);
        return { run: datasetRunToWire(view), summary: summaryToWire(summarize(results)), results: results.map(datasetResultToWire) };
      },
    );
  };
}
