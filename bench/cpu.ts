import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Database } from '@engram/db';

/** CPU time (user + system) spent during a phase, in ms, per part of the platform; null where it cannot be read. */
export type CpuTime = {
  /** This process: the API, the worker when in process, the load generator and the model server. */
  benchProcessMs: number;
  workerProcessMs: number | null;
  temporalServerMs: number | null;
  /** The server processes serving the bench database's connections. */
  postgresMs: number | null;
};

type ProcessTimes = Map<number, number>;

function clockTicksPerSecond(): number | null {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || null;
  } catch {
    return null;
  }
}

/** utime + stime of a process in ms from /proc (Linux), or null when it is not readable here. */
function procCpuMs(pid: number, ticksPerSecond: number | null): number | null {
  if (!ticksPerSecond) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesized command name start at field 3 (state); utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
  } catch {
    return null;
  }
}

function sumOf(times: ProcessTimes, baseline: ProcessTimes | null): number | null {
  if (times.size === 0) return null;
  let total = 0;
  // A backend that connected during the phase started from zero.
  for (const [pid, ms] of times) total += ms - (baseline?.get(pid) ?? 0);
  return total;
}

/**
 * Reads the CPU time of every part of the platform around a phase. On 2 shared cores this is the
 * steadier number: wall-clock times also carry whatever else the machine was doing.
 */
export function createCpuMeter(deps: { db: Database; temporalServerPid: number | null; workerPid: number | null }) {
  const ticksPerSecond = clockTicksPerSecond();
  const pidTimes = (pids: number[]): ProcessTimes =>
    new Map(pids.flatMap((pid) => {
      const ms = procCpuMs(pid, ticksPerSecond);
      return ms === null ? [] : [[pid, ms] as const];
    }));
  const postgresPids = async () =>
    ((await deps.db.raw('select pid from pg_stat_activity where datname = current_database()')) as { rows: Array<{ pid: number }> }).rows.map(
      (row) => row.pid,
    );
  const sample = async () => {
    const usage = process.cpuUsage();
    return {
      benchProcessMs: (usage.user + usage.system) / 1000,
      worker: deps.workerPid === null ? null : procCpuMs(deps.workerPid, ticksPerSecond),
      temporal: deps.temporalServerPid === null ? null : procCpuMs(deps.temporalServerPid, ticksPerSecond),
      postgres: pidTimes(await postgresPids()),
    };
  };

  return {
    async measure<T>(phase: () => Promise<T>): Promise<{ result: T; cpu: CpuTime }> {
      const before = await sample();
      const result = await phase();
      const after = await sample();
      const difference = (end: number | null, start: number | null) => (end === null || start === null ? null : end - start);
      return {
        result,
        cpu: {
          benchProcessMs: after.benchProcessMs - before.benchProcessMs,
          workerProcessMs: difference(after.worker, before.worker),
          temporalServerMs: difference(after.temporal, before.temporal),
          postgresMs: sumOf(after.postgres, before.postgres),
        },
      };
    },
  };
}

/** What `createCpuMeter` returns: measures a phase. */
export type CpuMeter = ReturnType<typeof createCpuMeter>;
