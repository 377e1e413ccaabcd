/**
 * File ingestion throughput: a generated markdown file (5 MB by default) uploaded into a folder with the
 * built-in local embedder, ingested by the real workflow on a real worker (parse, chunk, embed in batches,
 * write passages), timed from the start of the workflow to the file's `completed`. Reports chunks/s and
 * MB/s overall, and how long parsing and chunking took before the first batch was embedded.
 *
 *   node --import tsx bench/file-ingestion.ts [--megabytes 5]
 *
 * Standalone: a throwaway database, a Temporal dev server and a worker in this process, all removed when
 * done. `runFileIngestionBench` is the same measurement against a running stack, for bench/run.ts.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { insertFolder, insertUploadedFile, waitForFileStatus } from '@engram/testing/fixtures/uploaded-file';
import { createDatabase, createSecretBox, newId, Organization, SourceFile, type Database } from '@engram/db';
import { createFileIngestionClient, createTemporalClient } from '@engram/temporal/client';
import { createWorker } from '@engram/temporal/worker';
import { fileIngestionWorkflowId } from '@engram/workflows/file-ingestion/ids';
import { startBenchInfrastructure } from './infra.js';
import { loopbackEgress } from '@engram/testing/egress';
import { sandboxedStdio } from '@engram/testing/mcp-stdio';

export type FileIngestionBenchResult = {
  bytes: number;
  chunks: number;
  /** From starting the workflow to the file's `completed`. */
  totalMs: number;
  /** From starting the workflow until the file was chunked (status `embedding`), as polled every 20 ms. */
  parseAndChunkMs: number;
  chunksPerSecond: number;
  megabytesPerSecond: number;
};

const WORDS = (
  'agent memory archive folder passage embedding workflow durable worker temporal postgres vector search ' +
  'context window summary tool call message stream resume retry batch chunk index signature hybrid ranking ' +
  'lemon orchard harvest winter spring river mountain village market bridge library garden kitchen'
).split(' ');

/** Deterministic markdown of about `bytes` bytes: headings, paragraphs of sentences, lists and code blocks. */
export function generateMarkdown(bytes: number): string {
  let state = 7;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  const word = () => WORDS[Math.floor(next() * WORDS.length)]!;
  const sentence = () => {
    const words = Array.from({ length: 8 + Math.floor(next() * 14) }, word);
    return `${words[0]![0]!.toUpperCase()}${words.join(' ').slice(1)}.`;
  };
  const parts: string[] = [];
  let size = 0;
  for (let section = 1; size < bytes; section++) {
    const block = [
      `## Section ${section}: ${word()} and ${word()}`,
      Array.from({ length: 4 + Math.floor(next() * 4) }, sentence).join(' '),
      Array.from({ length: 3 }, () => `- ${sentence()}`).join('\n'),
      Array.from({ length: 3 + Math.floor(next() * 4) }, sentence).join(' '),
      section % 5 === 0 ? '```ts\nconst result = await store.search({ query, limit: 10 });\nconsole.log(result.length);\n```' : '',
    ]
      .filter((part) => part.length > 0)
      .join('\n\n');
    parts.push(block);
    size += block.length + 2;
  }
  return parts.join('\n\n').slice(0, bytes);
}

export async function runFileIngestionBench(
  deps: { db: Database; temporal: Client; taskQueue: string; organizationId: string },
  options: { bytes: number; log: (line: string) => void },
): Promise<FileIngestionBenchResult> {
  const text = generateMarkdown(options.bytes);
  const folder = await insertFolder(deps.db, { organizationId: deps.organizationId, name: `bench-${randomBytes(3).toString('hex')}` });
  const file = await insertUploadedFile(deps.db, { organizationId: deps.organizationId, folder, name: 'handbook.md', data: text });
  const ingestion = createFileIngestionClient({ client: deps.temporal, taskQueue: deps.taskQueue });
  options.log(`ingesting a ${(text.length / 1e6).toFixed(1)} MB markdown file`);

  const started = performance.now();
  await ingestion.start({ organizationId: deps.organizationId, fileId: file.id });
  let chunkedAt: number | undefined;
  for (;;) {
    const current = await SourceFile.query(deps.db).forOrg(deps.organizationId).findById(file.id).select('processingStatus');
    if (chunkedAt === undefined && current && current.processingStatus !== 'parsing') chunkedAt = performance.now();
    if (current?.processingStatus === 'completed' || current?.processingStatus === 'error') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const totalMs = performance.now() - started;
  const done = await waitForFileStatus(deps.db, { organizationId: deps.organizationId, id: file.id }, ['completed', 'error']);
  if (done.processingStatus !== 'completed') throw new Error(`ingestion failed: ${done.errorMessage}`);
  await deps.temporal.workflow.getHandle(fileIngestionWorkflowId(file.id)).result();

  const chunks = done.totalChunks ?? 0;
  const bytes = Buffer.byteLength(text);
  const result = {
    bytes,
    chunks,
    totalMs,
    parseAndChunkMs: (chunkedAt ?? performance.now()) - started,
    chunksPerSecond: chunks / (totalMs / 1000),
    megabytesPerSecond: bytes / 1e6 / (totalMs / 1000),
  };
  options.log(`${chunks} chunks in ${(totalMs / 1000).toFixed(1)} s: ${result.chunksPerSecond.toFixed(0)} chunks/s, ${result.megabytesPerSecond.toFixed(2)} MB/s`);
  return result;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { megabytes: { type: 'string', default: '5' } } });
  const megabytes = Number(values.megabytes);
  if (!(megabytes > 0)) throw new Error(`--megabytes must be a positive number, got ${values.megabytes}`);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const log = (line: string) => console.error(`[bench] ${line}`);
  const infrastructure = await startBenchInfrastructure({ configuredDatabaseUrl: process.env.DATABASE_URL, dataDir: path.join(process.cwd(), '.data'), log });
  // Two pools, as in production: the worker's own and the one the bench seeds and polls with.
  const workerDb = createDatabase({ url: infrastructure.databaseUrl });
  const db = createDatabase({ url: infrastructure.databaseUrl, pool: { max: 2 } });
  const taskQueue = `bench-files-${randomBytes(4).toString('hex')}`;
  const temporal = await createTemporalClient({ address: infrastructure.temporalAddress, namespace: 'default' });
  const { worker, connection } = await createWorker({
    address: infrastructure.temporalAddress,
    namespace: 'default',
    taskQueue,
    workflowBundlePath: infrastructure.workflowBundlePath,
    activityDeps: { db: workerDb, baseProviders: [], secrets: createSecretBox(randomBytes(32).toString('base64')), egress: loopbackEgress(), mcpStdio: sandboxedStdio(loopbackEgress()) },
  });
  const running = worker.run();
  try {
    const organizationId = newId('organization');
    await Organization.query(db).insert({ id: organizationId, name: 'file ingestion bench' });
    const result = await runFileIngestionBench({ db, temporal, taskQueue, organizationId }, { bytes: Math.round(megabytes * 1e6), log });
    console.log(JSON.stringify(result, null, 2));
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
    await temporal.connection.close();
    await Promise.all([db.destroy(), workerDb.destroy()]);
    await infrastructure.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
