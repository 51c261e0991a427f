import type { RunResult } from './result.js';

/** The file of a terminal sweep; docs/result-schema.md describes it. */
export const SWEEP_SCHEMA = 'headroom.sweep/1';

export interface SweepResult {
  schema: typeof SWEEP_SCHEMA;
  tool: { name: 'headroom'; version: string };
  /** completed also when the server refused a step: that is a finding, said by refusedAt. */
  status: 'completed' | 'interrupted' | 'failed';
  statusReason?: string;
  startedAt: string;
  endedAt: string;
  /** The counts of clients -c asked for, in order; steps after a refusal are not run. */
  clients: number[];
  argv: string[];
  /** The largest step that ran fully with every connection it asked for; null when none did. */
  accepted: number | null;
  /** The step the server refused connections for (and the sweep stopped at); null when none. */
  refusedAt: number | null;
  /** What the server said or what its connection budget was, when it refused. */
  refusal: string | null;
  /** The knee by the rule in kneeOf(), from the steps below; null when there is none. */
  knee: number | null;
  /** One result per step that ran, each complete as a single run's file. */
  steps: RunResult[];
}

/** A step as the knee rule sees it. */
export interface KneePoint {
  clients: number;
  tps: number;
  p99: number;
  /** Completed with every connection it asked for. */
  whole: boolean;
}

/** A step paid for its added clients when tps rose by at least this share of the clients' rise. */
export const KNEE_ELASTICITY = 0.25;

/**
 * The knee: the last step of the leading stretch of steps that each still paid for the clients
 * they added. Step i pays when
 *   - its tps gain is at least a quarter of its clients' gain, relatively
 *     ((tps_i / tps_i-1 - 1) >= 0.25 x (c_i / c_i-1 - 1); +10 clients over 20 must add 12.5% tps),
 *     measured against the clients added so that additive sweeps (100 -> 110) and multiplicative
 *     ones (x2) are judged alike, and
 *   - its p99 grew by no more than its clients did (p99_i / p99_i-1 <= c_i / c_i-1): below
 *     saturation p99 stays about flat, at saturation it grows with the clients (Little's law);
 *     faster than that is a tail blowing up.
 * A step that did not complete or ran with fewer connections than asked ends the stretch. null
 * when fewer than two whole steps ran, or when every step paid (still scaling at the end: the knee
 * lies beyond the range).
 */
export function kneeOf(points: readonly KneePoint[]): number | null {
  if (points.length < 2 || !points[0]!.whole) return null;
  for (let i = 1; i < points.length; i++) {
    const [before, step] = [points[i - 1]!, points[i]!];
    const clientRise = step.clients / before.clients;
    const pays =
      step.whole &&
      before.tps > 0 &&
      step.tps / before.tps - 1 >= KNEE_ELASTICITY * (clientRise - 1) &&
      (before.p99 <= 0 || step.p99 / before.p99 <= clientRise);
    if (!pays) return before.clients;
  }
  return null;
}

export function kneePoints(steps: readonly RunResult[]): KneePoint[] {
  return steps.map((s) => ({
    clients: s.config.clients,
    tps: s.summary.tps,
    p99: s.summary.latencyMs.p99,
    whole: s.status === 'completed' && s.summary.connections.refused === 0,
  }));
}
