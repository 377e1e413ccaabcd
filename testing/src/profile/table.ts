/** The per-file profile a `npm run test:profile` run writes, and its tables (also used to compare two runs). */

export type FileProfile = {
  file: string;
  project: string;
  /** From the moment the file was handed to a worker to its end, as the main process saw it. */
  wallMs: number;
  /** Worker start-up and environment (vitest's prepare + environment set-up). */
  prepareMs: number;
  /** Importing the test file and everything it imports. */
  importMs: number;
  /** Importing the set-up files. */
  setupFilesMs: number;
  /** `beforeAll`/`afterAll` and other hooks outside the tests (the file's duration less its tests'). */
  hooksMs: number;
  /** The tests themselves, with their `beforeEach`/`afterEach`. */
  testsMs: number;
  tests: number;
  failed: number;
  assertionCalls: number;
  /** Labelled spans recorded inside the worker (`profiled`), summed by label. */
  spans: Record<string, number>;
};

export type RunProfile = {
  startedAt: string;
  wallMs: number;
  /** The 1-minute load average when the run started and when it ended. */
  loadAverage: { start: number; end: number };
  cpus: number;
  maxWorkers: number | string;
  files: FileProfile[];
};

const seconds = (ms: number) => (ms / 1000).toFixed(1);

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join('  ');
}

/** Every span label in the run, the most expensive first. */
function spanLabels(files: FileProfile[]): string[] {
  const totals = new Map<string, number>();
  for (const file of files) for (const [label, ms] of Object.entries(file.spans)) totals.set(label, (totals.get(label) ?? 0) + ms);
  return [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([label]) => label);
}

/** The slowest `top` files and the totals, as a fixed-width text table (seconds). */
export function profileTable(run: RunProfile, top = 30): string {
  const labels = spanLabels(run.files);
  const header = ['file', 'wall', 'prepare', 'import', 'hooks', 'tests', '#tests', ...labels];
  const row = (file: FileProfile) => [
    file.file,
    seconds(file.wallMs),
    seconds(file.prepareMs + file.setupFilesMs),
    seconds(file.importMs),
    seconds(file.hooksMs),
    seconds(file.testsMs),
    String(file.tests),
    ...labels.map((label) => (file.spans[label] === undefined ? '' : seconds(file.spans[label]))),
  ];
  const sum = (pick: (file: FileProfile) => number) => run.files.reduce((total, file) => total + pick(file), 0);
  const totals = [
    `TOTAL (${run.files.length} files)`,
    seconds(sum((file) => file.wallMs)),
    seconds(sum((file) => file.prepareMs + file.setupFilesMs)),
    seconds(sum((file) => file.importMs)),
    seconds(sum((file) => file.hooksMs)),
    seconds(sum((file) => file.testsMs)),
    String(sum((file) => file.tests)),
    ...labels.map((label) => seconds(sum((file) => file.spans[label] ?? 0))),
  ];
  const rows = [...run.files].sort((a, b) => b.wallMs - a.wallMs).slice(0, top).map(row);
  const widths = header.map((cell, index) => Math.max(cell.length, totals[index]!.length, ...rows.map((cells) => cells[index]!.length)));
  const lines = [pad(header, widths), ...rows.map((cells) => pad(cells, widths)), pad(totals, widths)];
  const summary = [
    `run wall ${seconds(run.wallMs)} s on ${run.cpus} cores, ${run.maxWorkers} workers, load average ${run.loadAverage.start.toFixed(2)} at start / ${run.loadAverage.end.toFixed(2)} at end`,
    `tests run ${sum((file) => file.tests)}, failed ${sum((file) => file.failed)}, expect calls made ${sum((file) => file.assertionCalls)}`,
    'seconds; wall = handed to a worker → done; prepare = worker start + set-up files; hooks = beforeAll/afterAll; span columns are inside the file',
  ];
  return [...lines, '', ...summary].join('\n');
}

/** Two runs side by side: the slowest `top` files of either, wall time before and after, and the totals. */
export function compareTable(before: RunProfile, after: RunProfile, top = 30): string {
  const byFile = (run: RunProfile) => new Map(run.files.map((file) => [file.file, file]));
  const beforeFiles = byFile(before);
  const afterFiles = byFile(after);
  const names = [...new Set([...beforeFiles.keys(), ...afterFiles.keys()])]
    .sort((a, b) => (beforeFiles.get(b)?.wallMs ?? 0) - (beforeFiles.get(a)?.wallMs ?? 0))
    .slice(0, top);
  const cell = (file: FileProfile | undefined, pick: (file: FileProfile) => number) => (file ? seconds(pick(file)) : '—');
  const header = ['file', 'wall before', 'wall after', 'hooks before', 'hooks after', 'tests before', 'tests after'];
  const rows = names.map((name) => {
    const was = beforeFiles.get(name);
    const now = afterFiles.get(name);
    return [name, cell(was, (f) => f.wallMs), cell(now, (f) => f.wallMs), cell(was, (f) => f.hooksMs), cell(now, (f) => f.hooksMs), cell(was, (f) => f.testsMs), cell(now, (f) => f.testsMs)];
  });
  const total = (run: RunProfile, pick: (file: FileProfile) => number) => seconds(run.files.reduce((sum, file) => sum + pick(file), 0));
  const totals = [
    `TOTAL (${before.files.length} → ${after.files.length} files)`,
    total(before, (f) => f.wallMs),
    total(after, (f) => f.wallMs),
    total(before, (f) => f.hooksMs),
    total(after, (f) => f.hooksMs),
    total(before, (f) => f.testsMs),
    total(after, (f) => f.testsMs),
  ];
  const widths = header.map((cellText, index) => Math.max(cellText.length, totals[index]!.length, ...rows.map((cells) => cells[index]!.length)));
  const count = (run: RunProfile, pick: (file: FileProfile) => number) => run.files.reduce((sum, file) => sum + pick(file), 0);
  return [
    pad(header, widths),
    ...rows.map((cells) => pad(cells, widths)),
    pad(totals, widths),
    '',
    `run wall ${seconds(before.wallMs)} s → ${seconds(after.wallMs)} s; load average at start ${before.loadAverage.start.toFixed(2)} → ${after.loadAverage.start.toFixed(2)}`,
    `tests run ${count(before, (f) => f.tests)} → ${count(after, (f) => f.tests)}; expect calls made ${count(before, (f) => f.assertionCalls)} → ${count(after, (f) => f.assertionCalls)}`,
  ].join('\n');
}
