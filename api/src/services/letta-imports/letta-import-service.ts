import { LettaImport, newId, type Database, type SecretBox } from '@engram/db';
import { egressRefusalOf, type EgressPolicy } from '@engram/integrations/egress';
import { createLettaSource, importProgress, LettaSourceError, normalizeSourceUrl } from '@engram/integrations/letta-import';
import type { LettaImportClient } from '@engram/temporal/client';
import { NotFoundError, UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { OrganizationService } from '../tenancy/organizations.js';

export type LettaImportServiceDeps = {
  db: Database;
  secrets: SecretBox;
  egress: EgressPolicy;
  organizations: Pick<OrganizationService, 'resolveProject'>;
  runs: Pick<LettaImportClient, 'start' | 'workflowId'>;
};

export type StartImport = { sourceUrl: string; apiKey: string; dryRun: boolean };

/** An import run with what it has written so far (counted from its mappings and agent rows). */
export type LettaImportView = { run: LettaImport; progress: Awaited<ReturnType<typeof importProgress>>; workflowId: string };

/** Migrations of a whole organization from another server speaking the Letta `/v1` API. */
export function createLettaImportService(deps: LettaImportServiceDeps) {
  const { db } = deps;

  async function view(run: LettaImport): Promise<LettaImportView> {
    return { run, progress: await importProgress(db, { organizationId: run.organizationId, importId: run.id }), workflowId: deps.runs.workflowId(run.id) };
  }

  return {
    /**
     * Checks that the source is reachable under the egress policy and accepts the key (one small read), then
     * records the run (the key sealed) and starts its workflow. A dry run reads and reports; it writes nothing else.
     */
    async start(ctx: RequestContext, input: StartImport): Promise<LettaImportView> {
      let sourceUrl: string;
      try {
        sourceUrl = normalizeSourceUrl(input.sourceUrl);
        if (!/^https?:$/.test(new URL(sourceUrl).protocol)) throw new Error('not http');
      } catch {
        throw new UnprocessableError(['body', 'sourceUrl'], 'The source must be an http(s) URL of a server speaking the Letta API');
      }
      const source = createLettaSource({ url: sourceUrl, apiKey: input.apiKey, fetch: deps.egress.fetchFor({ organizationId: ctx.organizationId }), attempts: 2 });
      try {
        await source.probe();
      } catch (error) {
        const refusal = egressRefusalOf(error);
        if (refusal) throw new UnprocessableError(['body', 'sourceUrl'], refusal.message);
        if (error instanceof LettaSourceError && (error.status === 401 || error.status === 403)) {
          throw new UnprocessableError(['body', 'apiKey'], 'The source refused this API key');
        }
        const reason = error instanceof Error ? error.message : String(error);
        throw new UnprocessableError(['body', 'sourceUrl'], `The source could not be read: ${reason}`);
      }
      const projectId = await deps.organizations.resolveProject(ctx.organizationId, ctx.project);
      const run = await LettaImport.query(db).insertAndFetch({
        id: newId('lettaImport'),
        organizationId: ctx.organizationId,
        projectId,
        createdById: ctx.userId,
        sourceUrl,
        apiKeyEnc: deps.secrets.encrypt(input.apiKey),
        dryRun: input.dryRun,
        status: 'running',
        phase: 'planning',
        plan: null,
        problems: [],
        error: null,
        completedAt: null,
      });
      await deps.runs.start({ organizationId: ctx.organizationId, importId: run.id });
      return view(run);
    },

    async get(ctx: RequestContext, importId: string): Promise<LettaImportView> {
      const run = await LettaImport.query(db).forOrg(ctx.organizationId).findById(importId);
      if (!run) throw new NotFoundError('Import');
      return view(run);
    },

    /** The organization's runs, newest first. */
    async list(ctx: RequestContext, limit: number): Promise<LettaImportView[]> {
      const runs = await LettaImport.query(db).forOrg(ctx.organizationId).orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit);
      return Promise.all(runs.map(view));
    },
  };
}

export type LettaImportService = ReturnType<typeof createLettaImportService>;
