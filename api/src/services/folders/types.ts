import type { FileAgent } from '@engram/db';

/** A folder's file count and size, and, when asked for, its files (`GET /folders/metadata`). */
export type FolderStats = {
  sourceId: string;
  sourceName: string;
  fileCount: number;
  totalSize: number;
  /** Only when the caller asked for the per-folder detail. */
  files?: Array<{ fileId: string; fileName: string; fileSize: number }>;
};

/** One row of `GET /agents/{id}/files`: the agent's view of a file, with the folder it is in. */
export type AgentFileView = FileAgent & { folderName: string };
