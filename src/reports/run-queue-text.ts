import type { RunResult } from '../result/result.js';

/**
 * The job threads' wait for a CPU while measuring, in percent of their measured time (the wait is
 * added up over the threads, so is the time); undefined where the result does not hold it. The
 * benches read it from here too.
 */
export function runQueuePercent(summary: RunResult['summary']): number | undefined {
  const queue = summary.clientCpu.runQueue;
  if (!queue || queue.threads === 0 || summary.measuredSeconds <= 0) return undefined;
  return (queue.waitedMs / (queue.threads * summary.measuredSeconds * 1000)) * 100;
}

/**
 * The job threads' wait for a CPU as a share of their measured time: where a run's lag or latency
 * came from the client not getting a core (client and server share them), not from the server.
 * Undefined where the result does not hold it.
 */
export function runQueueText(summary: RunResult['summary']): string | undefined {
  const share = runQueuePercent(summary);
  const queue = summary.clientCpu.runQueue;
  if (share === undefined || !queue) return undefined;
  const threads = queue.threads === 1 ? 'the job thread' : `the ${queue.threads} job threads`;
  return `${threads} waited for a CPU ${share.toFixed(1)}% of the measured time (${queue.waitedMs.toFixed(0)} ms)`;
}
