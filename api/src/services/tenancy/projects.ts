import { Agent, VISIBLE_AGENT, Project, ProjectFavorite, newId, type Database } from '@engram/db';
import { UniqueViolationError } from 'objection';
import { BadRequestError, NotFoundError, UnprocessableError, badRequest } from '../../errors.js';
import type { Actor } from './members.js';
import type { TierLimitGuard } from './tier-limits.js';

/** Spec 000 §5: letters, digits, underscore and dash only. */
const PROJECT_SLUG = /^[A-Za-z0-9_-]+$/;

export type ProjectView = { project: Project; isFavorited: boolean };

export type ProjectListQuery = {
  search?: string | undefined;
  offset: number;
  limit: number;
  orderBy: 'name' | 'createdAt' | 'updatedAt';
  orderDirection: 'asc' | 'desc';
};

/** A slug from a name: lower-cased, runs of anything else turned into one dash. */
function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'project';
}

export function createProjectService(deps: { db: Database; limits: Pick<TierLimitGuard, 'assertWithinLimit'> }) {
  const { db } = deps;

  async function favoritedIds(userId: string, projectIds: string[]): Promise<Set<string>> {
    const rows = await ProjectFavorite.query(db).where({ userId }).whereIn('projectId', projectIds);
    return new Set(rows.map((row) => row.projectId));
  }

  async function find(organizationId: string, lookup: { by: 'id' | 'slug'; value: string }): Promise<Project> {
    const query = Project.query(db).forOrg(organizationId);
    const project = lookup.by === 'slug' ? await query.findOne({ slug: lookup.value }) : await query.findById(lookup.value);
    if (!project) throw new NotFoundError('Project');
    return project;
  }

  async function view(actor: Actor, project: Project): Promise<ProjectView> {
    return { project, isFavorited: (await favoritedIds(actor.userId, [project.id])).has(project.id) };
  }

  return {
    async list(actor: Actor, query: ProjectListQuery): Promise<{ projects: ProjectView[]; hasNextPage: boolean }> {
      const rows = Project.query(db).forOrg(actor.organizationId);
      if (query.search) {
        rows.where((where) => {
          where.whereILike('name', `%${query.search}%`).orWhereILike('slug', `%${query.search}%`);
        });
      }
      // Names sort as people read them, whatever their case.
      if (query.orderBy === 'name') rows.orderByRaw(`lower(name) ${query.orderDirection}`);
      else rows.orderBy(query.orderBy, query.orderDirection);
      const found = await rows
        .orderBy('id')
        .offset(query.offset)
        .limit(query.limit + 1);
      const shown = found.slice(0, query.limit);
      const favorites = await favoritedIds(actor.userId, shown.map((project) => project.id));
      return {
        projects: shown.map((project) => ({ project, isFavorited: favorites.has(project.id) })),
        hasNextPage: found.length > query.limit,
      };
    },

    async get(actor: Actor, lookup: { by: 'id' | 'slug'; value: string }): Promise<ProjectView> {
      return view(actor, await find(actor.organizationId, lookup));
    },

    /** Within the tier's project limit (when billing is on); a taken slug gets the next free numeric suffix. */
    async create(actor: Actor, input: { name: string }): Promise<ProjectView> {
      const project = await db.transaction(async (trx) => {
        await deps.limits.assertWithinLimit(trx, actor.organizationId, 'projects');
        const base = slugify(input.name);
        const sameBase = await Project.query(trx)
          .forOrg(actor.organizationId)
          .where((where) => {
            where.where('slug', base).orWhereLike('slug', `${base}-%`);
          });
        const taken = new Set(sameBase.map((row) => row.slug));
        let slug = base;
        for (let suffix = 2; taken.has(slug); suffix += 1) slug = `${base}-${suffix}`;
        return Project.query(trx)
          .insert({ id: newId('project'), organizationId: actor.organizationId, name: input.name, slug, isDefault: false })
          .returning('*');
      });
      return { project, isFavorited: false };
    },

    async update(actor: Actor, projectId: string, input: { name?: string | undefined; slug?: string | undefined }): Promise<ProjectView> {
      const project = await find(actor.organizationId, { by: 'id', value: projectId });
      if (!input.name && !input.slug) throw badRequest('atLeastOneFieldRequired', 'Give a name or a slug');
      if (input.slug !== undefined && !PROJECT_SLUG.test(input.slug)) {
        throw new UnprocessableError(['body', 'slug'], 'Slug must contain only letters, digits, underscores and dashes');
      }
      if (input.slug && input.slug !== project.slug) {
        const clash = await Project.query(db).forOrg(actor.organizationId).findOne({ slug: input.slug });
        if (clash) throw badRequest('slugAlreadyTaken', 'Slug already taken');
      }
      try {
        const updated = await project.$query(db).patchAndFetch({
          ...(input.name ? { name: input.name } : {}),
          ...(input.slug ? { slug: input.slug } : {}),
        });
        return view(actor, updated);
      } catch (error) {
        if (error instanceof UniqueViolationError) throw badRequest('slugAlreadyTaken', 'Slug already taken');
        throw error;
      }
    },

    /** The default project holds agents created without a project header, so it stays. */
    async delete(actor: Actor, projectId: string): Promise<void> {
      const project = await find(actor.organizationId, { by: 'id', value: projectId });
      if (project.isDefault) throw new BadRequestError('The default project cannot be deleted');
      await Project.query(db).forOrg(actor.organizationId).deleteById(project.id);
    },

    async setFavorite(actor: Actor, projectId: string, isFavorited: boolean): Promise<ProjectView> {
      const project = await find(actor.organizationId, { by: 'id', value: projectId });
      if (isFavorited) {
        await ProjectFavorite.query(db)
          .insert({ userId: actor.userId, projectId: project.id, organizationId: actor.organizationId })
          .onConflict(['user_id', 'project_id'])
          .ignore();
      } else {
        await ProjectFavorite.query(db).delete().where({ userId: actor.userId, projectId: project.id });
      }
      return { project, isFavorited };
    },

    /** The agents that live in the project, newest first. */
    async agents(actor: Actor, projectId: string, page: { offset: number; limit: number }): Promise<{ agents: Agent[]; hasNextPage: boolean }> {
      const project = await find(actor.organizationId, { by: 'id', value: projectId });
      const rows = await Agent.query(db)
        .forOrg(actor.organizationId)
        .where({ projectId: project.id })
        .whereRaw(VISIBLE_AGENT)
        .select('id', 'name', 'createdAt', 'updatedAt')
        .orderBy('createdAt', 'desc')
        .orderBy('id')
        .offset(page.offset)
        .limit(page.limit + 1);
      return { agents: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit };
    },
  };
}

export type ProjectService = ReturnType<typeof createProjectService>;
