export {
  createFileIngestionActivities,
  CHUNKS_PER_BATCH,
  type FileIngestionActivities,
  type FileIngestionDeps,
  type ChunkBatch,
  type FileRef,
} from './ingestion.js';
