import { KNEE_ELASTICITY, type SweepResult } from '../result/sweep.js';
import { table } from './table.js';

/** Whether the sweep's steps ran paced (-R): whether each count of terminals kept the schedule is then the question. */
function paced(sweep: SweepResult): boolean {
  return sweep.steps.some((step) => (step.config.rate ?? null) !== null);
}

/** The sweep table's header: with the schedule lag's p99, after the latencies, where the sweep ran paced (-R). */
export function sweepHeader(sweep: SweepResult): string[] {
  return ['terminals', 'tps', 'p50 ms', 'p99 ms', 'max ms', ...(paced(sweep) ? ['lag p99 ms'] : []), 'failed', 'CPU us/txn', 'note'];
}

/**
 * The sweep's table, one row per step and one for the refused step, as text cells under
 * sweepHeader; every output (terminal, Markdown, HTML) shows these same cells.
 */
export function sweepRows(sweep: SweepResult): string[][] {
  const lagColumn = paced(sweep);
  const rows = sweep.steps.map((step) => {
    const s = step.summary;
    const clients = step.config.clients;
    const notes = [
      ...(clients === sweep.knee ? ['knee'] : []),
      ...(s.connections.refused > 0 ? [`server accepted ${s.connections.accepted}`] : []),
      ...(step.status !== 'completed' ? [failedNote(step)] : []),
    ];
    const cpu = s.clientCpu.usPerTransaction;
    const lag = s.scheduleLagMs?.p99;
    return [
      String(clients),
      s.tps.toFixed(1),
      s.latencyMs.p50.toFixed(3),
      s.latencyMs.p99.toFixed(3),
      s.latencyMs.max.toFixed(3),
      ...(lagColumn ? [lag === undefined ? '-' : lag.toFixed(3)] : []),
      String(s.failed),
      cpu === null ? '-' : cpu.toFixed(1),
      notes.join(', '),
    ];
  });
  const ran = new Set(sweep.steps.map((s) => s.config.clients));
  if (sweep.refusedAt !== null && !ran.has(sweep.refusedAt))
    rows.push([String(sweep.refusedAt), '-', '-', '-', '-', ...(lagColumn ? ['-'] : []), '-', '-', 'refused by the server']);
  return rows;
}

/** A step that did not complete: its status, and for failed work which type failed how often. */
function failedNote(step: SweepResult['steps'][number]): string {
  const worst = step.failedWork?.[0];
  return worst && step.status === 'failed' ? `failed: ${worst.failedPercent}% of ${worst.type} failed` : step.status;
}

/** "accepted 40, refused at 50", or undefined when the server refused nothing. */
export function refusalLine(sweep: SweepResult): string | undefined {
  if (sweep.refusedAt === null) return undefined;
  return `accepted ${sweep.accepted ?? 'none'}, refused at ${sweep.refusedAt}${sweep.refusal ? ` (${sweep.refusal})` : ''}`;
}

/** What the knee rule found, in one line. */
export function kneeLine(sweep: SweepResult): string {
  // Paced, a step's tps is the rate asked for while the server keeps up: the rule would read a knee at the first step.
  if (paced(sweep))
    return 'knee: - (the steps ran paced with -R: their tps is the rate asked for, not what the server could do; lag p99 shows which numbers of terminals kept the schedule)';
  const rule = `rule: each step up to it added tps by at least ${KNEE_ELASTICITY * 100}% of its relative rise in terminals, and p99 grew no faster than the terminals`;
  if (sweep.knee !== null) return `knee: ${sweep.knee} terminals (${rule})`;
  const whole = sweep.steps.filter((s) => s.status === 'completed' && s.summary.connections.refused === 0).length;
  return whole < 2 ? 'knee: - (fewer than two whole steps)' : `knee: none within the range, still scaling at the last step (${rule})`;
}

/** The sweep as the terminal shows it at the end of `headroom run -c LIST`. */
export function sweepText(sweep: SweepResult, file: string | undefined): string {
  const first = sweep.steps[0];
  const lines = [
    `sweep: ${sweep.status}${sweep.statusReason ? ` (${sweep.statusReason})` : ''}`,
    ...(first
      ? [
          `workload: ${first.config.workload}, target: ${first.target.url} (${first.target.version}), ${first.config.durationSeconds !== null ? `${first.config.durationSeconds} s` : `${first.config.transactionsPerClient} transactions per client`} per step`,
        ]
      : []),
    ...table([sweepHeader(sweep), ...sweepRows(sweep)]).map((l) => `  ${l.trimEnd()}`),
    kneeLine(sweep),
  ];
  const refused = refusalLine(sweep);
  if (refused) lines.push(refused);
  if (file) lines.push(`result: ${file}`);
  return lines.join('\n');
}
