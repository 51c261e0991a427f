import { SECONDS_PER_DAY } from './demand.js';

/**
 * Capacity in business events for any workload: one event costs `perEvent` transactions, either of
 * the mix as it ran (a number: events/s = tps / cost) or per transaction type (e.g. a ticket sale:
 * 4 availability reads and 1 booking). Per type, the run's mix seldom is the demand's, so each
 * type is weighed by the time it took in the run (its average latency): the run kept
 * sum(tps x latency) of terminal time busy, and one event needs sum(cost x latency) of it.
 * That is an estimate for a mix other than the run's; a run in the demand's ratios measures it, and
 * is then counted as it ran: its tps over an event's transactions.
 */
export interface EventCapacity {
  requiredEventsPerSecond: number;
  /** Events per second the measured run carries. */
  measuredEventsPerSecond: number;
  /** True when the run's mix was re-weighed into the demand's (per-type costs in other ratios than the run's). */
  estimated: boolean;
  /** True when the run's committed types are the demand's, in its ratios: its events/s are measured as they are. */
  inRatios: boolean;
}

/** How far a type's share of the run's transactions may be from its share of an event's, and still be the demand's ratio. */
const RATIO_TOLERANCE = 0.05;

export function eventCapacity(
  eventsPerDay: number,
  perEvent: number | Readonly<Record<string, number>>,
  measured: { tps: number; types: readonly { name: string; tps: number; latencyMs: { avg: number } }[] },
): EventCapacity {
  const requiredEventsPerSecond = eventsPerDay / SECONDS_PER_DAY;
  if (typeof perEvent === 'number') return { requiredEventsPerSecond, measuredEventsPerSecond: measured.tps / perEvent, estimated: false, inRatios: false };
  if (inDemandRatios(perEvent, measured.types)) {
    // Every transaction of the run is part of an event: events/s are its tps over an event's transactions.
    const costs = Object.values(perEvent).reduce((sum, cost) => sum + cost, 0);
    const tps = measured.types.reduce((sum, t) => sum + t.tps, 0);
    return { requiredEventsPerSecond, measuredEventsPerSecond: tps / costs, estimated: false, inRatios: true };
  }
  const busy = measured.types.reduce((sum, t) => sum + t.tps * t.latencyMs.avg, 0);
  let perEventMs = 0;
  for (const [type, cost] of Object.entries(perEvent)) perEventMs += cost * (measured.types.find((t) => t.name === type)?.latencyMs.avg ?? 0);
  return { requiredEventsPerSecond, measuredEventsPerSecond: perEventMs > 0 ? busy / perEventMs : 0, estimated: true, inRatios: false };
}

/**
 * The run committed the demand's types and no others, each within RATIO_TOLERANCE (relative) of
 * its share of an event: e.g. an event of 4 availability reads and 1 booking, and a run whose mix
 * was weighted 4 to 1.
 */
function inDemandRatios(perEvent: Readonly<Record<string, number>>, types: readonly { name: string; tps: number }[]): boolean {
  const costs = Object.entries(perEvent).filter(([, cost]) => cost > 0);
  const ran = types.filter((t) => t.tps > 0);
  if (costs.length === 0 || ran.length !== costs.length) return false;
  const totalCost = costs.reduce((sum, [, cost]) => sum + cost, 0);
  const totalTps = ran.reduce((sum, t) => sum + t.tps, 0);
  return costs.every(([name, cost]) => {
    const type = ran.find((t) => t.name === name);
    return type !== undefined && Math.abs(type.tps / totalTps - cost / totalCost) <= RATIO_TOLERANCE * (cost / totalCost);
  });
}
