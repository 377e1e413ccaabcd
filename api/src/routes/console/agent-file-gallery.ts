import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AGENT_FILE_ACCESS_LEVELS } from '@engram/db';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import type { PublishedView } from '../../services/sharing/agent-file-gallery-service.js';
import { iso } from './schemas.js';

const AccessLevel = z.enum(AGENT_FILE_ACCESS_LEVELS);

/** Spec 000 §5's publishing rules, with their messages. */
const PublishBody = z.object({
  agentId: z.string(),
  name: z
    .string()
    .min(1, 'Name is required')
    .max(25, 'Name must be at most 25 characters long')
    .regex(/^[A-Za-z0-9_-]+$/, 'Name must be alphanumeric with underscores or dashes'),
  description: z.string().min(1, 'Description is required').max(50_000, 'Description must be at most 50000 characters long'),
  summary: z.string().min(1, 'Summary is required').max(200, 'Summary must be at most 200 characters long'),
  accessLevel: AccessLevel,
});

const Params = z.object({ agentFileId: z.string() });

/** Spec 000 §3's agent file without its contents; the source agent's id only for its own organization. */
const MetadataSchema = z.object({
  id: z.string(),
  accessLevel: AccessLevel,
  agentId: z.string().nullable(),
  name: z.string(),
  description: z.string(),
  summary: z.string(),
  author: z.string(),
  downloadCount: z.number().int(),
  publishedAt: z.string(),
  upvotes: z.number().int(),
  downvotes: z.number().int(),
  /** The signed-in viewer's own vote. */
  myVote: z.enum(['up', 'down']).nullable(),
});

const SummarySchema = MetadataSchema.pick({ id: true, name: true, summary: true, author: true, downloadCount: true, upvotes: true, downvotes: true, publishedAt: true });

/** What the gallery shows of the agent inside: its model, system prompt, memory, tools and tool rules. */
const DetailsSchema = MetadataSchema.extend({
  llmConfig: z.record(z.string(), z.unknown()),
  system: z.string(),
  memory: z.array(z.object({ label: z.string(), value: z.string(), limit: z.number().nullable(), description: z.string().nullable() })),
  tools: z.array(z.object({ name: z.string(), description: z.string().nullable(), toolType: z.string() })),
  toolRules: z.array(z.record(z.string(), z.unknown())),
});

function metadataToWire(shown: PublishedView): z.infer<typeof MetadataSchema> {
  const { file } = shown;
  return {
    id: file.id,
    accessLevel: file.accessLevel,
    agentId: shown.isOwner ? file.agentId : null,
    name: file.name,
    description: file.description,
    summary: file.summary,
    author: shown.author,
    downloadCount: file.downloadCount,
    publishedAt: iso(file.publishedAt),
    upvotes: file.upvotes,
    downvotes: file.downvotes,
    myVote: shown.myVote === null ? null : shown.myVote === 1 ? 'up' : 'down',
  };
}

type FileContent = {
  agents?: Array<{ llm_config?: Record<string, unknown>; system?: string; tool_rules?: Array<Record<string, unknown>> | null }>;
  blocks?: Array<{ label: string; value: string; limit?: number | null; description?: string | null }>;
  tools?: Array<{ name?: string | null; description?: string | null; tool_type?: string | null }>;
};

function detailsToWire(shown: PublishedView): z.infer<typeof DetailsSchema> {
  const content = shown.file.content as FileContent;
  const agent = content.agents?.[0];
  return {
    ...metadataToWire(shown),
    llmConfig: agent?.llm_config ?? {},
    system: agent?.system ?? '',
    memory: (content.blocks ?? []).map((block) => ({ label: block.label, value: block.value, limit: block.limit ?? null, description: block.description ?? null })),
    tools: (content.tools ?? []).map((tool) => ({ name: tool.name ?? '', description: tool.description ?? null, toolType: tool.tool_type ?? 'custom' })),
    toolRules: agent?.tool_rules ?? [],
  };
}

/**
 * Published agent files (spec 000 §7): publishing and its access level are the organization's; reading,
 * listing and downloading are public routes that show each file to whom its access level says.
 */
export function agentFileGalleryRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['console: agent files'];
    const gallery = services.agentFileGallery;

    app.post(
      '/agent-files',
      { schema: { tags, summary: 'Publish an agent as an agent file (its messages left out)', body: PublishBody, response: { 201: MetadataSchema } } },
      async (request, reply) => reply.code(201).send(metadataToWire(await gallery.publish(requireContext(request), request.body))),
    );

    app.get(
      '/agent-files',
      {
        schema: {
          tags,
          summary: 'Published agent files, 25 a page',
          querystring: z.object({
            search: z.string().optional(),
            sortBy: z.enum(['downloads', 'votes']).default('downloads'),
            offset: z.coerce.number().int().min(0).default(0),
          }),
          response: { 200: z.object({ agentFiles: z.array(SummarySchema.extend({ accessLevel: AccessLevel, myVote: MetadataSchema.shape.myVote })), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await gallery.list(request.access, request.query);
        return { agentFiles: page.files.map(metadataToWire), hasNextPage: page.hasNextPage };
      },
    );

    app.get(
      '/agent-files/:agentFileId/metadata',
      { schema: { tags, params: Params, response: { 200: MetadataSchema } } },
      async (request) => metadataToWire(await gallery.get(request.access, request.params.agentFileId)),
    );

    app.get(
      '/agent-files/:agentFileId/summary',
      { schema: { tags, params: Params, response: { 200: SummarySchema } } },
      async (request) => SummarySchema.parse(metadataToWire(await gallery.get(request.access, request.params.agentFileId))),
    );

    app.get(
      '/agent-files/:agentFileId/details',
      { schema: { tags, params: Params, response: { 200: DetailsSchema } } },
      async (request) => detailsToWire(await gallery.get(request.access, request.params.agentFileId)),
    );

    app.get(
      '/agent-files/:agentFileId/download',
      {
        schema: {
          tags,
          summary: 'The agent file as published, for `POST /v1/agents/import` (counts the download)',
          params: Params,
          response: { 200: z.record(z.string(), z.unknown()) },
        },
      },
      async (request, reply) => {
        const file = await gallery.download(request.access, request.params.agentFileId);
        reply.header('content-disposition', `attachment; filename="${file.name}.af"`);
        return file.content;
      },
    );

    app.patch(
      '/agent-files/:agentFileId/access-level',
      { schema: { tags, params: Params, body: z.object({ accessLevel: AccessLevel }), response: { 200: MetadataSchema } } },
      async (request) => metadataToWire(await gallery.setAccessLevel(requireContext(request), request.params.agentFileId, request.body.accessLevel)),
    );

    app.post(
      '/agent-files/:agentFileId/vote',
      {
        schema: { tags, summary: "The signed-in user's one vote on the file", params: Params, body: z.object({ vote: z.enum(['up', 'down']) }), response: { 200: MetadataSchema } },
        // Any organization's users vote, so no tenant guard runs: a file the user cannot read is not found before its body is looked at.
        preValidation: async (request) => {
          await gallery.get(request.access, (request.params as { agentFileId: string }).agentFileId);
        },
      },
      async (request) => metadataToWire(await gallery.vote(request.access, request.params.agentFileId, request.body.vote)),
    );
  };
}
