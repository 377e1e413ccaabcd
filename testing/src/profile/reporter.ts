/**
 * A vitest reporter that measures where each test file's time goes (`npm run test:profile`): prints the slowest
 * files and the totals, and writes the whole profile to `.test-artifacts/test-profile.json`, which
 * `npm run test:profile -- --compare <before.json>` (scripts/test-profile.ts) sets beside another run's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import './spans.js';
import { profileTable, type FileProfile, type RunProfile } from './table.js';

export const PROFILE_FILE = '.test-artifacts/test-profile.json';

export default class ProfileReporter implements Reporter {
  private root = process.cwd();
  private maxWorkers: number | string = '?';
  private readonly runStarted = Date.now();
  private readonly loadAtStart = os.loadavg()[0]!;
  private readonly handedOut = new Map<string, number>();
  private readonly files: FileProfile[] = [];

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    this.maxWorkers = vitest.config.maxWorkers ?? '?';
  }

  onTestModuleQueued(testModule: TestModule): void {
    this.handedOut.set(testModule.moduleId, Date.now());
  }

  onTestModuleEnd(testModule: TestModule): void {
    const diagnostic = testModule.diagnostic();
    const tests = [...testModule.children.allTests()];
    const testsMs = tests.reduce((sum, test) => sum + (test.diagnostic()?.duration ?? 0), 0);
    const spans: Record<string, number> = {};
    for (const span of testModule.meta().profileSpans ?? []) spans[span.label] = (spans[span.label] ?? 0) + span.ms;
    this.files.push({
      file: path.relative(this.root, testModule.moduleId),
      project: testModule.project.name,
      wallMs: Date.now() - (this.handedOut.get(testModule.moduleId) ?? this.runStarted),
      prepareMs: diagnostic.prepareDuration + diagnostic.environmentSetupDuration,
      importMs: diagnostic.collectDuration,
      setupFilesMs: diagnostic.setupDuration,
      hooksMs: Math.max(0, diagnostic.duration - testsMs),
      testsMs,
      tests: tests.length,
      failed: tests.filter((test) => test.result().state === 'failed').length,
      assertionCalls: testModule.meta().assertionCalls ?? 0,
      spans,
    });
  }

  onTestRunEnd(): void {
    const run: RunProfile = {
      startedAt: new Date(this.runStarted).toISOString(),
      wallMs: Date.now() - this.runStarted,
      loadAverage: { start: this.loadAtStart, end: os.loadavg()[0]! },
      cpus: os.cpus().length,
      maxWorkers: this.maxWorkers,
      files: this.files,
    };
    const output = path.join(this.root, PROFILE_FILE);
    mkdirSync(path.dirname(output), { recursive: true });
    writeFileSync(output, `${JSON.stringify(run, null, 1)}\n`);
    console.log(`\n${profileTable(run)}\nprofile written to ${PROFILE_FILE}`);
  }
}
