import type { WorkloadMetric } from '../workloads/workload.js';

/**
 * A workload figure's kind; files written before kinds were recorded hold tpcc's alone, whose NOPM
 * and TPM are rates and whose skipped districts a count.
 */
export function metricKind(metric: WorkloadMetric): 'rate' | 'count' {
  return metric.kind ?? (metric.name === 'NOPM' || metric.name === 'TPM' ? 'rate' : 'count');
}

/** A count as a whole number ("skipped districts = 0"), a rate to one decimal. */
export function formatWorkloadMetric(metric: WorkloadMetric): string {
  return metricKind(metric) === 'count' ? Math.round(metric.value).toString() : metric.value.toFixed(1);
}
