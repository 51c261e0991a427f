import type { StatementStat } from './observation.js';

export interface StatementCounters {
  id: string;
  calls: number;
  totalMs: number;
  rows: number;
  query: string;
  /** Planning time, where the server counts it (see StatementStat.planMs). */
  planMs?: number;
}

/**
 * Statement statistics over the run: the counters now minus the snapshot taken at its start, so
 * nothing is reset on the server and statements from before the run do not count.
 */
export function diffStatements(baseline: ReadonlyMap<string, StatementCounters>, now: readonly StatementCounters[], limit: number): StatementStat[] {
  return now
    .map((s) => {
      const before = baseline.get(s.id);
      const calls = s.calls - (before?.calls ?? 0);
      const totalMs = s.totalMs - (before?.totalMs ?? 0);
      const stat: StatementStat = { statement: s.query, calls, totalMs, meanMs: calls > 0 ? totalMs / calls : 0, rows: s.rows - (before?.rows ?? 0) };
      if (s.planMs !== undefined) stat.planMs = s.planMs - (before?.planMs ?? 0);
      return stat;
    })
    .filter((s) => s.calls > 0)
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, limit);
}

export function countersById(rows: readonly StatementCounters[]): Map<string, StatementCounters> {
  return new Map(rows.map((s) => [s.id, s]));
}

/** Rows of (id, calls, total ms, rows, text[, planning ms]), as both servers' statistics views give them. */
export function toCounters(rows: readonly unknown[][]): StatementCounters[] {
  return rows.map(([id, calls, totalMs, count, query, planMs]) => ({
    id: String(id),
    calls: Number(calls),
    totalMs: Number(totalMs),
    rows: Number(count),
    query: String(query),
    ...(planMs === undefined ? {} : { planMs: Number(planMs) }),
  }));
}
