/**
 * What an agent sees of the files in its attached folders: how many it may keep open, how much of each its
 * prompt shows, and the line-numbered window an open file shows. Pure, so the API, the ingestion activities
 * and the agent loop all compute the same view.
 */

export type FileViewLimits = { maxFilesOpen: number; perFileViewWindowCharLimit: number };

/** Upper bound of `max_files_open`, as on the public API. */
export const MAX_FILES_OPEN_CAP = 1000;

/** Defaults when the agent leaves the knobs unset: they scale with the context window (none known → 5 / 50 000). */
export function fileViewDefaultsFor(contextWindow: number | null | undefined): FileViewLimits {
  if (contextWindow === null || contextWindow === undefined) return { maxFilesOpen: 5, perFileViewWindowCharLimit: 50_000 };
  if (contextWindow <= 8_000) return { maxFilesOpen: 3, perFileViewWindowCharLimit: 5_000 };
  if (contextWindow <= 32_000) return { maxFilesOpen: 5, perFileViewWindowCharLimit: 15_000 };
  if (contextWindow <= 128_000) return { maxFilesOpen: 10, perFileViewWindowCharLimit: 25_000 };
  if (contextWindow <= 200_000) return { maxFilesOpen: 10, perFileViewWindowCharLimit: 40_000 };
  return { maxFilesOpen: 15, perFileViewWindowCharLimit: 40_000 };
}

/** The agent's own settings where it has them, else the defaults for its context window. */
export function fileViewLimitsOf(agent: {
  maxFilesOpen: number | null;
  perFileViewWindowCharLimit: number | null;
  contextWindow: number | null | undefined;
}): FileViewLimits {
  const defaults = fileViewDefaultsFor(agent.contextWindow);
  return {
    maxFilesOpen: agent.maxFilesOpen ?? defaults.maxFilesOpen,
    perFileViewWindowCharLimit: agent.perFileViewWindowCharLimit ?? defaults.perFileViewWindowCharLimit,
  };
}

/** Appended where a view was cut at the character limit, so the model knows to open a narrower range. */
export const TRUNCATED_MARK = '...[TRUNCATED]';

/** `visibleContent` as the prompt shows it; `startLine`/`endLine` (1-based, inclusive) only when a range was asked for. */
export type FileView = { visibleContent: string; startLine: number | null; endLine: number | null };

export type FileViewResult = { ok: true; view: FileView } | { ok: false; error: string };

export function linesOfFile(content: string): string[] {
  if (content === '') return [];
  const lines = content.split(/\r?\n/);
  // A trailing newline ends the last line; it does not start another one.
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Cuts `text` to `limit` characters including the mark, so the stored view never exceeds the agent's window. */
export function truncateToLimit(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return text.slice(0, Math.max(0, limit - TRUNCATED_MARK.length)) + TRUNCATED_MARK;
}

/** The header and `N: line` for lines [start, end), stopping once past `charLimit`: the rest would be cut anyway. */
function numberedWithin(header: string, lines: string[], start: number, end: number, charLimit: number): string {
  const parts = [header];
  let length = header.length;
  for (let index = start; index < end && length <= charLimit; index += 1) {
    const numbered = `${index + 1}: ${lines[index]}`;
    parts.push(numbered);
    length += numbered.length + 1;
  }
  return parts.join('\n');
}

/**
 * The window of `content` an agent sees: `N: line` for each line, under a `[Viewing …]` header. `offset` is the
 * 0-based first line and `length` the number of lines; without them the view starts at the top of the file.
 */
export function renderFileView(
  fileName: string,
  content: string,
  request: { offset?: number | undefined; length?: number | undefined; charLimit: number },
): FileViewResult {
  const lines = linesOfFile(content);
  const total = lines.length;
  const { offset, length } = request;
  if (offset !== undefined && (!Number.isInteger(offset) || offset < 0)) {
    return { ok: false, error: `offset for ${fileName} must be a whole number of lines from 0, got ${offset}` };
  }
  if (length !== undefined && (!Number.isInteger(length) || length < 1)) {
    return { ok: false, error: `length for ${fileName} must be at least 1 line, got ${length}` };
  }
  const ranged = offset !== undefined || length !== undefined;
  if (!ranged) {
    const text = numberedWithin(`[Viewing file start (out of ${total} lines)]`, lines, 0, total, request.charLimit);
    return { ok: true, view: { visibleContent: truncateToLimit(text, request.charLimit), startLine: null, endLine: null } };
  }
  const start = offset ?? 0;
  if (start >= total && total > 0) {
    return { ok: false, error: `${fileName} has only ${total} lines, but offset ${start} starts past its end (offsets run from 0 to ${total - 1})` };
  }
  // A range reaching past the end stops at the last line rather than failing.
  const end = Math.min(total, length === undefined ? total : start + length);
  const text = numberedWithin(`[Viewing lines ${start + 1} to ${end} (out of ${total} lines)]`, lines, start, end, request.charLimit);
  return { ok: true, view: { visibleContent: truncateToLimit(text, request.charLimit), startLine: start + 1, endLine: end } };
}
