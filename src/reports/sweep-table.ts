import { KNEE_ELASTICITY, type SweepResult } from '../result/sweep.js';
import { table } from './table.js';

export const SWEEP_HEADER = ['terminals', 'tps', 'p50 ms', 'p99 ms', 'max ms', 'failed', 'CPU us/txn', 'note'] as const;

/**
 * The sweep's table, one row per step and one for the refused step, as text cells; every output
 * (terminal, Markdown, CSV, HTML) shows these same cells.
 */
export function sweepRows(sweep: SweepResult): string[][] {
  const rows = sweep.steps.map((step) => {
    const s = step.summary;
    const clients = step.config.clients;
    const notes = [
      ...(clients === sweep.knee ? ['knee'] : []),
      ...(s.connections.refused > 0 ? [`server accepted ${s.connections.accepted}`] : []),
      ...(step.status !== 'completed' ? [failedNote(step)] : []),
    ];
    const cpu = s.clientCpu.usPerTransaction;
    return [
      String(clients),
      s.tps.toFixed(1),
      s.latencyMs.p50.toFixed(3),
      s.latencyMs.p99.toFixed(3),
      s.latencyMs.max.toFixed(3),
      String(s.failed),
      cpu === null ? '-' : cpu.toFixed(1),
      notes.join(', '),
    ];
  });
  const ran = new Set(sweep.steps.map((s) => s.config.clients));
  if (sweep.refusedAt !== null && !ran.has(sweep.refusedAt)) rows.push([String(sweep.refusedAt), '-', '-', '-', '-', '-', '-', 'refused by the server']);
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
    ...table([[...SWEEP_HEADER], ...sweepRows(sweep)]).map((l) => `  ${l.trimEnd()}`),
    kneeLine(sweep),
  ];
  const refused = refusalLine(sweep);
  if (refused) lines.push(refused);
  if (file) lines.push(`result: ${file}`);
  return lines.join('\n');
}
