import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { FileIngestionActivities } from '@engram/activities';
import type { FileIngestionInput } from './ids.js';

// Parsing and chunking read the file from the database and write its state back: quick, idempotent,
// and retried on transient failures. A file that cannot be parsed fails at once (non-retryable).
const preparation = proxyActivities<FileIngestionActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

// A batch embeds through the provider (429/5xx/timeouts retry with backoff) and writes its passages under
// ids derived from the file and chunk index, so a retried batch rewrites nothing. Heartbeats reveal a
// dead worker within seconds, and the batch is dispatched again to a live one.
const embedding = proxyActivities<FileIngestionActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 6 },
});

const bookkeeping = proxyActivities<FileIngestionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 },
});

/** Batches embedded at once: one embeds while another writes, without flooding the provider. */
const CONCURRENT_BATCHES = 2;

export type FileIngestionResult = { status: 'completed'; totalChunks: number } | { status: 'error'; message: string } | { status: 'file_deleted' };

function failureMessage(error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure || cause instanceof Error) return cause.message;
  return 'File ingestion failed unexpectedly.';
}

/**
 * Ingests one uploaded file: parse (the text becomes the file's content and is opened in the agents of its
 * folder), chunk, embed the chunks in batches as passages of the folder, then mark the file completed. A
 * failure leaves the file in `error` with the reason; a file deleted meanwhile ends the workflow quietly.
 * Only small values pass through history: the text and the chunks stay in PostgreSQL.
 */
export async function fileIngestionWorkflow(input: FileIngestionInput): Promise<FileIngestionResult> {
  try {
    const parsed = await preparation.parseUploadedFile(input);
    if (parsed.outcome === 'file_deleted') return { status: 'file_deleted' };
    const chunked = await preparation.chunkParsedFile(input);
    if (chunked.outcome === 'file_deleted') return { status: 'file_deleted' };

    let next = 0;
    let deleted = false;
    let failed = false;
    const embedRemaining = async () => {
      try {
        while (!deleted && !failed && next < chunked.batches.length) {
          const batch = chunked.batches[next++]!;
          const embedded = await embedding.embedFileChunks({ ...input, ...batch });
          if (embedded.outcome === 'file_deleted') deleted = true;
        }
      } catch (error) {
        // The other lane stops at its next batch instead of embedding a file that has already failed.
        failed = true;
        throw error;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_BATCHES }, embedRemaining));
    if (deleted) return { status: 'file_deleted' };

    const completed = await bookkeeping.completeFileIngestion(input);
    if (completed.outcome === 'file_deleted') return { status: 'file_deleted' };
    return { status: 'completed', totalChunks: chunked.totalChunks };
  } catch (error) {
    const message = isCancellation(error) ? 'File ingestion was cancelled.' : failureMessage(error);
    // Recorded even when the workflow itself is being cancelled, so the file does not stay in progress forever.
    await CancellationScope.nonCancellable(() => bookkeeping.markFileIngestionFailed({ ...input, message }));
    if (isCancellation(error)) throw error;
    return { status: 'error', message };
  }
}
