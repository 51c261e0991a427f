import type { EngineOutcome } from '../engine/engine.js';
import type { MergedTotals } from '../engine/measurements.js';
import { toThreadError } from '../engine/thread-error.js';
import { encodeHistogram } from '../metrics/histogram.js';
import type { JobTotals, OutageEpisode } from '../metrics/recorder.js';
import type { WireOutcome } from './messages.js';

/** An agent's outcome for the bus: histograms in HdrHistogram's encoding, which merges exactly. */
export function toWireOutcome(outcome: EngineOutcome): WireOutcome {
  return {
    status: outcome.status,
    failure: outcome.failure && toThreadError(outcome.failure),
    jobFailure: outcome.jobFailure && toThreadError(outcome.jobFailure),
    lostJobs: outcome.lostJobs,
    openingAt: outcome.openingAt?.getTime(),
    startedAt: outcome.startedAt.getTime(),
    measureStartedAt: outcome.measureStartedAt?.getTime(),
    measuredSeconds: outcome.measuredSeconds,
    totals: asJobTotals(outcome.totals),
    clientCpu: outcome.clientCpu,
    clientPeakRssKb: outcome.clientPeakRssKb,
    eventLoopDelayMs: outcome.eventLoopDelayMs,
  };
}

/** Merged totals back in a job's form; each merged outage becomes one episode per terminal it held, its errors on the first. */
function asJobTotals(totals: MergedTotals): JobTotals {
  const outages: OutageEpisode[] = totals.outages.flatMap((o) => {
    const startMs = Date.parse(o.startedAt);
    const endMs = startMs + o.seconds * 1000;
    return Array.from({ length: o.terminals }, (_, i) => ({ startMs, endMs, errors: i === 0 ? o.errors : 0, recovered: o.recovered }));
  });
  return {
    types: totals.types.map((t) => ({ ...t, histogram: encodeHistogram(t.histogram) })),
    lagSumUs: totals.lagSumUs,
    lagMaxUs: totals.lagMaxUs,
    ...(totals.lag.totalCount > 0 ? { lagHistogram: encodeHistogram(totals.lag) } : {}),
    ...(totals.timer ? { timer: totals.timer } : {}),
    errors: totals.errors,
    outages,
    refusedConnections: totals.refusedConnections,
    terminals: totals.terminals,
    commands: totals.commands,
    connectMs: totals.connectMs,
    ...(totals.reconnectMs > 0 ? { reconnectMs: totals.reconnectMs } : {}),
    ...(totals.nodes ? { nodes: totals.nodes.map((n) => ({ ...n, histogram: encodeHistogram(n.histogram) })) } : {}),
    ...(totals.stuck.length > 0 ? { stuck: totals.stuck } : {}),
    ...(totals.waits ? { waits: totals.waits } : {}),
    ...(totals.runQueue ? { runQueue: totals.runQueue } : {}),
  };
}
