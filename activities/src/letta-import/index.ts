import { Context } from '@temporalio/activity';
import type { Database, SecretBox } from '@engram/db';
import { createEmbedder, createPassageStore } from '@engram/integrations/archival';
import type { EgressPolicy } from '@engram/integrations/egress';
import type { BaseProviderConfig } from '@engram/integrations/llm';
import { createLettaImporter, type ImportRef } from '@engram/integrations/letta-import';
import { whileHeartbeating } from '../heartbeat.js';

export type LettaImportDeps = { db: Database; secrets: SecretBox; egress: EgressPolicy; baseProviders: BaseProviderConfig[] };

/**
 * The activities of `lettaImportWorkflow`: thin wrappers over the importer, which keeps all state in PostgreSQL
 * (mappings, per-agent cursors), so an activity retried after its worker died continues instead of repeating.
 */
export function createLettaImportActivities(deps: LettaImportDeps) {
  const importer = createLettaImporter({
    db: deps.db,
    secrets: deps.secrets,
    egress: deps.egress,
    passages: createPassageStore({ db: deps.db, embedder: createEmbedder(deps) }),
  });
  const heartbeat = () => Context.current().heartbeat();

  return {
    /** Lists the source into the run's plan and agent queue; a dry run's whole work. */
    async planLettaImport(ref: ImportRef): Promise<{ agents: number; dryRun: boolean }> {
      return whileHeartbeating(2000, () => importer.plan(ref, heartbeat));
    },

    async importLettaShared(ref: ImportRef): Promise<void> {
      await whileHeartbeating(2000, () => importer.importShared(ref));
    },

    /** Folders and their files; answers the files whose ingestion the workflow is to run. */
    async importLettaFolders(ref: ImportRef): Promise<{ fileIds: string[] }> {
      return whileHeartbeating(2000, () => importer.importFolders(ref));
    },

    /** Imports up to `size` agents whole; answers how many are still waiting. */
    async importLettaAgentBatch(input: ImportRef & { size: number }): Promise<{ pending: number }> {
      return whileHeartbeating(2000, () => importer.importAgentBatch(input, input.size, heartbeat));
    },

    async importLettaLinks(ref: ImportRef): Promise<void> {
      await whileHeartbeating(2000, () => importer.importLinks(ref));
    },

    async finishLettaImport(input: ImportRef & { failure?: string }): Promise<void> {
      await importer.finish(input, input.failure);
    },
  };
}

export type LettaImportActivities = ReturnType<typeof createLettaImportActivities>;
