export interface CapacityPlan {
  requiredUnitsPerSecond: number;
  measuredUnitsPerSecond: number;
  /** measured / required: how many times the average load one machine carries. */
  headroom: number;
  /** The load to carry at peak: required x peak factor. */
  peakUnitsPerSecond: number;
  /** Machines like the measured one to carry the peak at the target utilisation, at least 1. */
  machines: number;
}

export function planCapacity(required: number, measured: number, peakFactor: number, targetUtilisation: number): CapacityPlan {
  const peak = required * peakFactor;
  return {
    requiredUnitsPerSecond: required,
    measuredUnitsPerSecond: measured,
    headroom: measured / required,
    peakUnitsPerSecond: peak,
    machines: Math.max(1, Math.ceil(peak / (measured * targetUtilisation))),
  };
}

/**
 * What the machine count assumes: that reads and writes both spread over the machines. With one
 * primary and read replicas, every write runs on the primary, so the writes stay capped at what
 * one machine carries at the target utilisation, however many machines are added.
 */
export function scaleOutLine(plan: CapacityPlan, targetUtilisation: number, unit: string): string {
  const f = (v: number): string => v.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const cap = plan.measuredUnitsPerSecond * targetUtilisation;
  return (
    `machines assume reads and writes both scale out over them (sharding, or several primaries); a single primary with read replicas ` +
    `runs every write on one machine, which caps the writes at ${f(cap)} ${unit}/s (one machine at ${Math.round(targetUtilisation * 100)}%): ` +
    `a peak whose writes exceed that needs the writes scaled out, not more replicas`
  );
}
