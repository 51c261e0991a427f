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
