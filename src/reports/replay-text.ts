import type { RunResult } from '../result/result.js';
import { KEEPS_UP_MARGIN, type ReplayRecord, type ReplaySweep } from '../result/replay-record.js';
import { table } from './table.js';

/** Statement shapes listed by the replay's text; the result has them all. */
const SHAPES_SHOWN = 15;

const ms = (v: number): string => v.toFixed(2);

/** A replay's own facts, one line each: time against target, lag, statements against the capture, recorded errors, rows, the data it ran on. */
export function replayFacts(result: RunResult): string[] {
  const r = result.replay;
  if (!r) return [];
  const lines: string[] = [];
  lines.push(`replay of ${r.capture} (${r.source.dbms} ${r.source.kind}, ${r.sessions} session(s)) at speed ${r.speed}, ${paceWords(r)}`);
  lines.push(
    `duration: ${r.replaySeconds.toFixed(2)} s against ${r.targetSeconds.toFixed(2)} s (recorded ${r.recordedSeconds.toFixed(2)} s / ${r.speed}): ${r.keepsUp ? 'kept up' : 'did not keep up'} (within ${KEEPS_UP_MARGIN * 100}%)`,
  );
  const lag = result.summary.scheduleLagMs;
  if (lag) lines.push(`schedule lag: p50 ${ms(lag.p50 ?? lag.avg)} ms, p99 ${ms(lag.p99 ?? lag.max)} ms, max ${ms(lag.max)} ms`);
  const s = r.statements;
  const match =
    s.executed === s.captured ? 'all ran' : `${s.captured - s.executed - s.unfinished} not run${s.unfinished > 0 ? `, ${s.unfinished} unfinished` : ''}`;
  lines.push(`statements: ${s.executed} of ${s.captured} captured (${match}), ${s.failed} failed`);
  lines.push(
    `recorded errors: ${r.recordedErrors.captured} in the capture, ${r.recordedErrors.again} failed again (expected, not counted failed), ${r.recordedErrors.gone} ran without error`,
  );
  if (r.rows.checked > 0) lines.push(`rows: ${r.rows.checked} statement(s) checked against the capture's row counts, ${r.rows.differ} differ`);
  lines.push(
    r.data.freshFrom !== null
      ? `data: a fresh copy of ${r.data.freshFrom}, dropped after the replay`
      : r.data.sharedWithEarlierSteps
        ? 'data: the database given, with the writes of the earlier replays of this sweep (use --fresh-from to start each from the same data)'
        : 'data: the database given, as it was',
  );
  return lines;
}

/** --pace, as the facts say it: what was due at its recorded time. */
function paceWords(r: ReplayRecord): string {
  return r.pace === 'transactions'
    ? "each transaction's first statement due at its recorded start, the rest following the one before (--pace transactions)"
    : 'each statement due at its recorded start (--pace statements)';
}

export const REPLAY_KIND_HEADER = ['kind', 'captured', 'executed', 'failed', 'unfinished', 'match'] as const;

/** Statements per kind (select, insert, commit, ...): captured against executed. */
export function replayKindRows(record: ReplayRecord): string[][] {
  return Object.entries(record.byKind).map(([kind, c]) => [
    kind,
    String(c.captured),
    String(c.executed),
    String(c.failed),
    String(c.unfinished),
    c.executed === c.captured ? 'yes' : 'NO',
  ]);
}

/** A replay's own lines: its facts, statements per kind against the capture, and the busiest statement shapes. */
export function replayText(result: RunResult): string {
  const r = result.replay;
  if (!r) return '';
  const lines = replayFacts(result);
  lines.push('', ...table([[...REPLAY_KIND_HEADER], ...replayKindRows(r)]));
  const shown = [...result.transactions].sort((a, b) => b.count + b.failed - (a.count + a.failed)).slice(0, SHAPES_SHOWN);
  const rows = shown.map((t) => [
    t.name,
    String(t.count + t.failed),
    ms(t.latencyMs.p50),
    ms(t.latencyMs.p99),
    String(t.failed),
    t.counters?.['rows checked'] ? `${t.counters['rows differ'] ?? 0}/${t.counters['rows checked']}` : '-',
  ]);
  lines.push('', ...table([['statement', 'count', 'p50 ms', 'p99 ms', 'failed', 'rows differ'], ...rows]));
  if (result.transactions.length > SHAPES_SHOWN) lines.push(`(${result.transactions.length - SHAPES_SHOWN} more statement shapes in the result)`);
  for (const t of shown) if (t.firstError) lines.push(`first error of ${t.name}: ${t.firstError.message}`);
  return lines.join('\n');
}

export const REPLAY_SWEEP_HEADER = ['speed', 'statements', 'duration vs target', 'p50 / p99 ms', 'lag p99 ms', 'failed', 'holds'] as const;

/** --until's steps, one row per speed, in the order they ran. */
export function replaySweepRows(sweep: ReplaySweep): string[][] {
  return sweep.steps.map((s) => [
    `${s.speed}x`,
    `${s.executed}/${s.statements}`,
    `${s.replaySeconds.toFixed(2)} / ${s.targetSeconds.toFixed(2)} s`,
    `${ms(s.p50Ms)} / ${ms(s.p99Ms)}`,
    s.lagP99Ms === null ? '-' : ms(s.lagP99Ms),
    `${s.failed} (${s.failedPercent.toFixed(2)}%)`,
    s.status === 'interrupted' ? 'interrupted' : s.holds ? 'yes' : 'NO',
  ]);
}

/** The sweep's answer: the headroom factor with the step that held, and the next step that failed (or why none did). */
export function replaySweepVerdict(sweep: ReplaySweep): string[] {
  const lines: string[] = [];
  // The step above the factor: the slowest failing step faster than it (below 1 the sweep went down from 1).
  const failing = sweep.steps.filter((s) => !s.holds && s.status !== 'interrupted').sort((a, b) => a.speed - b.speed);
  const failedStep = failing.find((s) => s.speed > (sweep.factor ?? 0));
  const conditions = sweep.until.join(', ');
  if (sweep.factor === null && failedStep === undefined) lines.push('headroom factor: not found (the sweep was interrupted before a step held or failed)');
  else if (sweep.factor === null)
    lines.push(
      failedStep!.speed < 1
        ? `headroom factor: below ${failedStep!.speed} (${conditions} failed at every speed down to ${failedStep!.speed}x)`
        : `headroom factor: below 1 (the recorded speed already fails ${conditions})`,
    );
  else if (sweep.factor < 1) lines.push(`headroom factor: ${sweep.factor}x, below 1 (${conditions} held at ${sweep.factor}x of the recorded speed, not at 1x)`);
  else lines.push(`headroom factor: ${sweep.factor}x (${conditions} held at ${sweep.factor}x)`);
  if (failedStep) lines.push(`next step failed: ${failedStep.speed}x: ${failedStep.failing.join('; ')}`);
  else if (sweep.ended === 'interrupted') lines.push('the sweep was interrupted before a step failed: the factor is at least the one shown');
  else lines.push(`every speed up to ${sweep.steps.at(-1)?.speed}x held: the factor is at least that`);
  return lines;
}

/** --until's table, one row per speed, and the headroom factor with the step that held and the next that failed. */
export function replaySweepText(sweep: ReplaySweep): string {
  return [...table([[...REPLAY_SWEEP_HEADER], ...replaySweepRows(sweep)]), '', ...replaySweepVerdict(sweep)].join('\n');
}
