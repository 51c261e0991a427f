import type { RunResult } from '../result/result.js';
import { table } from './table.js';

/** The summary's lines on routing: statements per node, replica lag, the check on the primary. */
export function replicationLines(result: RunResult): string[] {
  const r = result.replication;
  if (!r) return [];
  const ms = (v: number): string => v.toFixed(3);
  const lines = [`routing: ${r.route}, balance ${r.balance}; statements per node:`];
  const header = ['node', 'statements', 'share', 'reads', 'transactions', 'avg ms', 'p99 ms'];
  const rows = r.nodes.map((n) => [
    `${n.node} ${n.url.replace(/^[a-z]+:\/\/[^@]*@/, '')}`,
    String(n.statements),
    `${(n.share * 100).toFixed(1)}%`,
    String(n.reads),
    String(n.transactions),
    ms(n.latencyMs.avg),
    ms(n.latencyMs.p99),
  ]);
  lines.push(...table([header, ...rows]).map((l) => `  ${l}`));
  for (const replica of r.lag?.replicas ?? []) {
    const figures = Object.keys(replica.max).map((k) => `${k} avg ${replica.avg[k]} max ${replica.max[k]}`);
    lines.push(`lag ${replica.node} (${replica.samples} samples): ${figures.join(', ') || 'no samples'}`);
  }
  // Over time: the main figure of each replica once a second (the last minute of a long run).
  const key = r.lag?.series[0]?.replicas[0]?.bytes !== undefined ? 'bytes' : 'behindTransactions';
  for (const [i, replica] of (r.lag?.replicas ?? []).entries()) {
    const values = r.lag!.series.slice(-60).map((p) => p.replicas[i]?.[key] ?? '-');
    if (values.length > 1) lines.push(`lag ${replica.node} ${key} per second: ${values.join(' ')}`);
  }
  if (r.lag?.error) lines.push(`lag sampling stopped: ${r.lag.error}`);
  for (const c of r.check ?? []) lines.push(`check on the primary: ${c.ok ? 'ok' : 'FAILED'} ${c.name}: ${c.detail}`);
  return lines;
}
