import {
  CONSOLE_API,
  errorFromResponse,
  queryString,
  send,
  sendJson,
  V1_API,
  v1AuthHeaders,
  type RequestOptions,
  type Run,
  type Step,
  type StepMetrics,
  type StepTrace,
  type Tool,
} from '@engram/console-kit';

/*
 * `/v1` calls only the agent development environment makes, beside the kit's client: they live in
 * this remote so they add nothing to the JavaScript the shell loads before sign-in.
 */

const v1Json = <T>(path: string, options: RequestOptions = {}) => sendJson<T>(`${V1_API}${path}`, { ...options, headers: { ...options.headers, ...v1AuthHeaders() } });

/** `ToolExecutionResult` of `POST /agents/{id}/tools/{name}/run`. */
export type ToolExecutionResult = {
  status: 'success' | 'error';
  func_return?: unknown;
  stdout?: string[] | null;
  stderr?: string[] | null;
};

/** Built-ins that edit memory or open files run only inside a turn; these run on their own too (the server says the same). */
const RUNNABLE_BUILT_INS = new Set(['archival_memory_insert', 'archival_memory_search', 'semantic_search_files']);

export function canRunOnItsOwn(tool: Tool): boolean {
  return tool.tool_type === 'custom' || tool.tool_type === 'external_mcp' || RUNNABLE_BUILT_INS.has(tool.name);
}

/** Runs one of the agent's tools as the agent would: with its secrets, archives and folders, outside any turn. */
export function runAgentTool(agentId: string, toolName: string, args: Record<string, unknown>): Promise<ToolExecutionResult> {
  return v1Json<ToolExecutionResult>(`/agents/${encodeURIComponent(agentId)}/tools/${encodeURIComponent(toolName)}/run`, {
    method: 'POST',
    json: { args },
  });
}

export type ArchivalSearch = { query: string; tags: string[]; tagMatchMode: 'any' | 'all' };

/** One hit of `GET /agents/{id}/archival-memory/search`; `timestamp` is in the agent's timezone. */
export type ArchivalSearchResult = { id: string; content: string; timestamp: string; tags: string[] | null };

/** Hybrid (meaning and words) search over the agent's archival memory, best first. */
export function searchArchivalMemory(agentId: string, search: ArchivalSearch, topK: number) {
  return v1Json<{ results: ArchivalSearchResult[]; count: number }>(`/agents/${encodeURIComponent(agentId)}/archival-memory/search`, {
    query: { query: search.query, tags: search.tags, tag_match_mode: search.tagMatchMode, top_k: topK },
  });
}

/** A wire `Folder` (what the panel shows of it). */
export type Folder = { id: string; name: string; description: string | null };

export type FileProcessingStatus = 'pending' | 'parsing' | 'embedding' | 'completed' | 'error';

/** A wire `FileMetadata` of `GET /folders/{id}/files`, without its content. */
export type FolderFile = {
  id: string;
  source_id: string;
  file_name: string;
  file_size: number | null;
  processing_status: FileProcessingStatus;
  error_message: string | null;
  total_chunks: number | null;
  chunks_embedded: number | null;
};

/** An item of `GET /agents/{id}/files`: the agent's view of one file of its folders. */
export type AgentFile = {
  id: string;
  file_id: string;
  /** `<folder>/<file>`, the name the agent knows it by. */
  file_name: string;
  is_open: boolean;
  /** What the agent's prompt shows of the file while it is open; null when closed. */
  visible_content: string | null;
};

export type AgentFilePage = { files: AgentFile[]; next_cursor: string | null; has_more: boolean };

/** What an upload does when the folder already has a file of that name (the server's default is `suffix`). */
export type DuplicateHandling = 'suffix' | 'replace' | 'skip' | 'error';

type KeysetPage = { after: string | null; limit: number };

const pageQuery = (page: KeysetPage) => ({ limit: page.limit, order: 'desc', ...(page.after ? { after: page.after } : {}) });
const agentPath = (agentId: string, suffix: string) => `/agents/${encodeURIComponent(agentId)}${suffix}`;
const folderPath = (folderId: string, suffix = '') => `/folders/${encodeURIComponent(folderId)}${suffix}`;

/** The organization's folders, newest first. */
export function listFolders(page: KeysetPage) {
  return v1Json<Folder[]>('/folders/', { query: pageQuery(page) });
}

export function createFolder(name: string) {
  return v1Json<Folder>('/folders/', { method: 'POST', json: { name } });
}

/** The folders attached to the agent, newest first. */
export function listAgentFolders(agentId: string, page: KeysetPage) {
  return v1Json<Folder[]>(agentPath(agentId, '/folders/'), { query: pageQuery(page) });
}

/** Gives the agent the folder's files (the newest parsed ones open) and the file tools. */
export function attachFolder(agentId: string, folderId: string) {
  return v1Json<unknown>(agentPath(agentId, `/folders/attach/${encodeURIComponent(folderId)}`), { method: 'PATCH' });
}

export function detachFolder(agentId: string, folderId: string) {
  return v1Json<unknown>(agentPath(agentId, `/folders/detach/${encodeURIComponent(folderId)}`), { method: 'PATCH' });
}

/** A folder's files with their ingestion status, newest first. */
export function listFolderFiles(folderId: string, page: KeysetPage) {
  return v1Json<FolderFile[]>(folderPath(folderId, '/files'), { query: pageQuery(page) });
}

/**
 * Uploads one file; its parsing, chunking and embedding then run in the background. The kit's client only
 * sends JSON, so this posts the multipart form itself (the browser sets its boundary). `skipped`: a file of
 * that name was already there and `skip` kept it.
 */
export async function uploadFile(folderId: string, file: File, duplicateHandling: DuplicateHandling): Promise<{ file: FolderFile; skipped: boolean }> {
  const form = new FormData();
  form.append('file', file, file.name);
  const response = await fetch(`${V1_API}${folderPath(folderId, '/upload')}${queryString({ duplicate_handling: duplicateHandling })}`, {
    method: 'POST',
    headers: { accept: 'application/json', ...v1AuthHeaders() },
    body: form,
    credentials: 'same-origin',
  });
  if (!response.ok) throw await errorFromResponse(response);
  return { file: (await response.json()) as FolderFile, skipped: response.headers.get('x-upload-result') === 'skipped' };
}

/** Deletes the file with its chunks; every agent that had it open closes it. */
export function deleteFolderFile(folderId: string, fileId: string) {
  return v1Json<null>(folderPath(folderId, `/${encodeURIComponent(fileId)}`), { method: 'DELETE' });
}

/** The agent's files across its folders, open or closed, newest first. */
export function listAgentFiles(agentId: string, page: KeysetPage) {
  return v1Json<AgentFilePage>(agentPath(agentId, '/files/'), { query: pageQuery(page) });
}

/** Opens the file at its top in the agent's context; answers with the names of the files closed to make room. */
export function openAgentFile(agentId: string, fileId: string) {
  return v1Json<string[]>(agentPath(agentId, `/files/${encodeURIComponent(fileId)}/open`), { method: 'PATCH' });
}

export function closeAgentFile(agentId: string, fileId: string) {
  return v1Json<unknown>(agentPath(agentId, `/files/${encodeURIComponent(fileId)}/close`), { method: 'PATCH' });
}

/** Closes every open file of the agent; answers with their names. */
export function closeAllAgentFiles(agentId: string) {
  return v1Json<string[]>(agentPath(agentId, '/files/close-all'), { method: 'PATCH' });
}

/** `GET /api/console-settings`: where runs are inspected, what the signed-in member may do, and whether web search is set up. */
export type ConsoleSettings = {
  temporalUi: { url: string; namespace: string } | null;
  member: { role: string; permissions: string[] };
  /** The web_search tool's provider, or null when the server's operator configured none. */
  webSearch: { provider: 'exa' | 'tavily' | 'brave' | 'searxng' | null };
};

export function getConsoleSettings() {
  return sendJson<ConsoleSettings>(`${CONSOLE_API}/console-settings`);
}

/** A run's workflow in the Temporal Web UI: its workflow id is the run id. */
export function temporalWorkflowUrl(temporalUi: { url: string; namespace: string }, runId: string): string {
  return `${temporalUi.url}/namespaces/${encodeURIComponent(temporalUi.namespace)}/workflows/${encodeURIComponent(runId)}`;
}

export function getRun(runId: string) {
  return v1Json<Run>(`/runs/${encodeURIComponent(runId)}`);
}

/** A run's steps in the order they ran. */
export function listRunSteps(runId: string) {
  return v1Json<Step[]>(`/runs/${encodeURIComponent(runId)}/steps`, { query: { order: 'asc', limit: 1000 } });
}

const stepPath = (stepId: string, suffix: string) => `/steps/${encodeURIComponent(stepId)}${suffix}`;

export function getStepMetrics(stepId: string) {
  return v1Json<StepMetrics>(stepPath(stepId, '/metrics'));
}

/** The provider call of a step; null when the step made none that was recorded (it failed before the answer). */
export function getStepTrace(stepId: string) {
  return v1Json<StepTrace | null>(stepPath(stepId, '/trace'));
}

/** The agent as an agent file (JSON): its configuration, memory blocks, tools and message history. */
export async function exportAgentFile(agentId: string): Promise<Blob> {
  const response = await send(`${V1_API}${agentPath(agentId, '/export')}`, { headers: v1AuthHeaders() });
  return new Blob([await response.text()], { type: 'application/json' });
}

export type ImportAgentOptions = {
  projectId: string;
  /** Replaces the name in the file. */
  name?: string;
};

/**
 * Creates the agents of an agent file in the project. Custom tools the organization already has by name keep
 * their definition (`override_existing_tools=false`), so importing never changes another agent's tools.
 */
export async function importAgentFile(file: Blob, fileName: string, options: ImportAgentOptions): Promise<{ agent_ids: string[] }> {
  const form = new FormData();
  form.append('file', file, fileName);
  form.append('override_existing_tools', 'false');
  if (options.name) form.append('name', options.name);
  const response = await fetch(`${V1_API}/agents/import`, {
    method: 'POST',
    headers: { accept: 'application/json', 'x-project-id': options.projectId, ...v1AuthHeaders() },
    body: form,
    credentials: 'same-origin',
  });
  if (!response.ok) throw await errorFromResponse(response);
  return (await response.json()) as { agent_ids: string[] };
}

/** A new agent with the same configuration, memory, tools and history: the agent's file imported under a new name. */
export async function duplicateAgent(agentId: string, name: string, projectId: string): Promise<string> {
  const file = await exportAgentFile(agentId);
  const { agent_ids: agentIds } = await importAgentFile(file, `${agentId}.af`, { projectId, name });
  const [copyId] = agentIds;
  if (!copyId) throw new Error('The agent file held no agent');
  return copyId;
}
