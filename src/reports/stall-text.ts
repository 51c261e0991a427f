import type { SeriesPoint } from '../engine/measurements.js';
import { stuckPlace } from '../metrics/stuck.js';
import type { RunResult } from '../result/result.js';

/** Stuck terminals listed one by one up to this many; more are counted. */
const STUCK_LINES = 8;

/** The progress line's stall notice: nothing has ended for a while and terminals wait; empty otherwise. */
export function stallNotice(point: SeriesPoint): string {
  const stalled = point.stalled;
  if (!stalled) return '';
  return `, no transaction ended for ${(stalled.silentMs / 1000).toFixed(1)} s, ${stalled.terminals} terminal(s) waiting`;
}

/**
 * The summary's lines on a server (or a workload's code) that stopped answering: each stall, the
 * transactions the run ended without and where each stuck terminal was.
 */
export function stallLines(result: RunResult): string[] {
  const lines = (result.summary.stalls ?? []).map(
    (s) =>
      `stall: no transaction ended for ${s.seconds.toFixed(1)} s or more from ${s.startS.toFixed(1)} s into the run${s.toEnd ? ' to its end' : ''}, while up to ${s.terminals} terminal(s) waited in theirs`,
  );
  const unfinished = result.summary.unfinished ?? 0;
  const stuck = result.stuck ?? [];
  if (unfinished > 0) {
    const longest = Math.max(0, ...stuck.map((s) => s.waitedMs));
    lines.push(
      `unfinished: ${unfinished} transaction(s) still waiting when the run ended, not counted as processed; their waits (up to ${(longest / 1000).toFixed(1)} s) are in the latency figures`,
    );
  }
  for (const s of stuck.slice(0, STUCK_LINES)) {
    lines.push(`  terminal ${s.terminal} in ${s.transaction} for ${(s.waitedMs / 1000).toFixed(1)} s, ${stuckPlace(s)}`);
  }
  if (stuck.length > STUCK_LINES) lines.push(`  and ${stuck.length - STUCK_LINES} more terminal(s)`);
  return lines;
}
