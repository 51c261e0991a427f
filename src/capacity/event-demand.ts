import { SECONDS_PER_DAY } from './demand.js';

/**
 * Capacity in business events for any workload: one event costs `perEvent` transactions, either of
 * the mix as it ran (a number: events/s = tps / cost) or per transaction type (e.g. a ticket sale:
 * 4 availability reads and 1 booking). Per type, the run's mix seldom is the demand's, so each
 * type is weighed by the time it took in the run (its average latency): the run kept
 * sum(tps x latency) of terminal time busy, and one event needs sum(cost x latency) of it.
 * That is an estimate for a mix other than the run's; a run in the demand's ratios measures it.
 */
export interface EventCapacity {
  requiredEventsPerSecond: number;
  /** Events per second the measured run carries. */
  measuredEventsPerSecond: number;
  /** True when the run's mix was re-weighed into the demand's (per-type costs). */
  estimated: boolean;
}

export function eventCapacity(
  eventsPerDay: number,
  perEvent: number | Readonly<Record<string, number>>,
  measured: { tps: number; types: readonly { name: string; tps: number; latencyMs: { avg: number } }[] },
): EventCapacity {
  const requiredEventsPerSecond = eventsPerDay / SECONDS_PER_DAY;
  if (typeof perEvent === 'number') return { requiredEventsPerSecond, measuredEventsPerSecond: measured.tps / perEvent, estimated: false };
  const busy = measured.types.reduce((sum, t) => sum + t.tps * t.latencyMs.avg, 0);
  let perEventMs = 0;
  for (const [type, cost] of Object.entries(perEvent)) perEventMs += cost * (measured.types.find((t) => t.name === type)?.latencyMs.avg ?? 0);
  return { requiredEventsPerSecond, measuredEventsPerSecond: perEventMs > 0 ? busy / perEventMs : 0, estimated: true };
}
