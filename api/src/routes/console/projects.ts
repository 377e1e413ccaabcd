import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { ProjectView } from '../../services/tenancy/projects.js';
import type { AppServices } from '../../services/index.js';
import { iso, PageQuery, success, Success } from './schemas.js';

const ProjectSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  updatedAt: z.string(),
  isFavorited: z.boolean(),
});

const projectWire = ({ project, isFavorited }: ProjectView): z.infer<typeof ProjectSchema> => ({
  id: project.id,
  name: project.name,
  slug: project.slug,
  updatedAt: iso(project.updatedAt),
  isFavorited,
});

const ProjectParams = z.object({ projectId: z.string() });
const ProjectName = z.string().trim().min(1).max(100);

/** Projects of the acting organization, found by id or slug. */
export function projectRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/projects',
      {
        schema: {
          tags: ['console: projects'],
          querystring: PageQuery.extend({
            orderBy: z.enum(['name', 'createdAt', 'updatedAt']).default('updatedAt'),
            orderDirection: z.enum(['asc', 'desc']).default('desc'),
          }),
          response: { 200: z.object({ projects: z.array(ProjectSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await services.projects.list(requireContext(request), request.query);
        return { projects: page.projects.map(projectWire), hasNextPage: page.hasNextPage };
      },
    );

    app.post(
      '/projects',
      {
        schema: { tags: ['console: projects'], body: z.object({ name: ProjectName }), response: { 201: ProjectSchema } },
      },
      async (request, reply) => reply.code(201).send(projectWire(await services.projects.create(requireContext(request), request.body))),
    );

    app.get(
      '/projects/:projectId',
      {
        schema: {
          tags: ['console: projects'],
          summary: 'A project by id, or by slug with `lookupBy=slug`',
          params: ProjectParams,
          querystring: z.object({ lookupBy: z.enum(['id', 'slug']).default('id') }),
          response: { 200: ProjectSchema },
        },
      },
      async (request) =>
        projectWire(await services.projects.get(requireContext(request), { by: request.query.lookupBy, value: request.params.projectId })),
    );

    app.patch(
      '/projects/:projectId',
      {
        schema: {
          tags: ['console: projects'],
          summary: 'Rename a project or change its slug (at least one of the two)',
          params: ProjectParams,
          body: z.object({ name: ProjectName.optional(), slug: z.string().max(100).optional() }),
          response: { 200: ProjectSchema },
        },
      },
      async (request) => projectWire(await services.projects.update(requireContext(request), request.params.projectId, request.body)),
    );

    app.delete(
      '/projects/:projectId',
      { schema: { tags: ['console: projects'], params: ProjectParams, response: { 200: Success } } },
      async (request) => {
        await services.projects.delete(requireContext(request), request.params.projectId);
        return success;
      },
    );

    app.post(
      '/projects/:projectId/favorite',
      {
        schema: {
          tags: ['console: projects'],
          params: ProjectParams,
          body: z.object({ isFavorited: z.boolean() }),
          response: { 200: ProjectSchema },
        },
      },
      async (request) =>
        projectWire(await services.projects.setFavorite(requireContext(request), request.params.projectId, request.body.isFavorited)),
    );

    app.get(
      '/projects/:projectId/source-agents',
      {
        schema: {
          tags: ['console: projects'],
          summary: 'The agents in the project',
          params: ProjectParams,
          querystring: PageQuery.omit({ search: true }),
          response: {
            200: z.object({
              agents: z.array(z.object({ id: z.string(), name: z.string(), createdAt: z.string(), updatedAt: z.string() })),
              hasNextPage: z.boolean(),
            }),
          },
        },
      },
      async (request) => {
        const page = await services.projects.agents(requireContext(request), request.params.projectId, request.query);
        return {
          agents: page.agents.map((agent) => ({ id: agent.id, name: agent.name, createdAt: iso(agent.createdAt), updatedAt: iso(agent.updatedAt) })),
          hasNextPage: page.hasNextPage,
        };
      },
    );
  };
}
