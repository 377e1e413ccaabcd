import { Context } from '@temporalio/activity';

/**
 * Runs `work` while telling Temporal this worker is alive every `everyMs`, so a worker that dies mid-activity is
 * noticed within the activity's heartbeat timeout instead of its whole start-to-close timeout.
 */
export async function whileHeartbeating<T>(everyMs: number, work: () => Promise<T>): Promise<T> {
  const activity = Context.current();
  const heartbeat = setInterval(() => activity.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
  }
}
