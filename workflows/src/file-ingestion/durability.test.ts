import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNKS_PER_BATCH } from '@engram/activities';
import { chunkPassageId } from '@engram/integrations/files';
import { insertFolder, insertUploadedFile, waitForFileStatus } from '@engram/testing/fixtures/uploaded-file';
import { Passage, SourceFile } from '@engram/db';
import { createFileIngestionClient } from '@engram/temporal/client';
import { crashTestProcesses, startTestStack, type TestStack, until } from '@engram/testing';
import { fileIngestionWorkflowId } from './ids.js';

let stack: TestStack;
const processes = crashTestProcesses(() => stack.workerEnv);

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false });
});

afterAll(async () => {
  await processes.killAll();
  await stack?.stop();
});

/** About 1 MB of prose in numbered sections: enough batches that ingesting it takes several seconds. */
function largeMarkdown(): string {
  return Array.from({ length: 2400 }, (_, section) =>
    [
      `## Section ${section}`,
      `Shipment ${section} left the harbour at dawn with ${section % 40} crates of lemons and a crew of ${section % 9} sailors.`,
      `The captain logged wind from the ${['north', 'east', 'south', 'west'][section % 4]} and calm water until noon.`,
      `Inventory check ${section}: oranges, olives, salt, rope and ${section % 13} barrels of fresh water were counted twice.`,
      `At the market the buyer of lot ${section} paid in silver, and the harbour master stamped the papers before dusk.`,
    ].join('\n\n'),
  ).join('\n\n');
}

describe('file ingestion survives the death of its worker', () => {
  it('completes after the worker is SIGKILLed mid-ingestion, every chunk stored exactly once', async () => {
    const organizationId = stack.tenant.organizationId;
    const folder = await insertFolder(stack.db, { organizationId, name: 'shipping' });
    const file = await insertUploadedFile(stack.db, { organizationId, folder, name: 'logbook.md', data: largeMarkdown() });
    const firstWorker = processes.worker();
    await createFileIngestionClient({ client: stack.temporal, taskQueue: stack.taskQueue }).start({ organizationId, fileId: file.id });

    // Killed once some batches are stored and many are not: mid-way through embedding.
    const midWay = (observed: SourceFile | undefined) => observed?.processingStatus === 'embedding' && (observed.chunksEmbedded ?? 0) > 0;
    const observed = await until(
      () => SourceFile.query(stack.db).forOrg(organizationId).findById(file.id),
      (current) => midWay(current) || current?.processingStatus === 'completed' || current?.processingStatus === 'error',
      { timeoutMs: 90_000, intervalMs: 25, what: 'ingestion mid-way' },
    );
    if (!midWay(observed)) throw new Error(`ingestion was not caught mid-way: ${JSON.stringify(observed)}\n${firstWorker.output()}`);
    await firstWorker.kill();
    const atKill = await SourceFile.query(stack.db).forOrg(organizationId).findById(file.id);
    expect(atKill!.processingStatus).toBe('embedding');
    expect(atKill!.chunksEmbedded).toBeLessThan(atKill!.totalChunks!);

    processes.worker();
    const done = await waitForFileStatus(stack.db, { organizationId, id: file.id }, ['completed', 'error'], 150_000);
    expect(done).toMatchObject({ processingStatus: 'completed', errorMessage: null });
    expect(done.totalChunks).toBeGreaterThan(5 * CHUNKS_PER_BATCH);
    expect(done.chunksEmbedded).toBe(done.totalChunks);
    const stored = await Passage.query(stack.db).forOrg(organizationId).where({ fileId: file.id }).select('id');
    expect(stored).toHaveLength(done.totalChunks!);
    const expectedIds = Array.from({ length: done.totalChunks! }, (_, index) => chunkPassageId(file.id, index));
    expect(new Set(stored.map((passage) => passage.id))).toEqual(new Set(expectedIds));
    expect(await stack.temporal.workflow.getHandle(fileIngestionWorkflowId(file.id)).result()).toEqual({ status: 'completed', totalChunks: done.totalChunks });
  }, 240_000);
});
