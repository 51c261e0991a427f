import type { TypeCounts, WorkloadMetric } from '../workload.js';

/**
 * NOPM: New-Order transactions committed per minute of the measured period (HammerDB's figure;
 * the rolled-back 1% are not commits). TPM: all committed transactions per minute.
 */
export function tpccMetrics(types: readonly TypeCounts[], measuredSeconds: number): WorkloadMetric[] {
  const minutes = measuredSeconds / 60;
  const perMinute = (count: number): number => (minutes > 0 ? Math.round((count / minutes) * 10) / 10 : 0);
  const newOrders = types.find((t) => t.name === 'new-order');
  const committedNewOrders = newOrders ? newOrders.count - newOrders.rolledBack : 0;
  const committed = types.reduce((sum, t) => sum + t.count - t.rolledBack, 0);
  return [
    { name: 'NOPM', value: perMinute(committedNewOrders), description: 'New-Order commits per minute' },
    { name: 'TPM', value: perMinute(committed), description: 'committed transactions per minute, all types' },
  ];
}
