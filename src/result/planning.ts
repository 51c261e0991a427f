import type { PlanningResult, PlanningSample, RunResult } from './result.js';

/** A workload's planning sample with its share of the server's CPU per unit during the run (observe's figure). */
export function planningResult(sample: PlanningSample, result: Pick<RunResult, 'server' | 'summary'>): PlanningResult {
  const units = result.summary.transactions + result.summary.failed;
  const cpuSeconds = result.server?.host?.cpuSeconds;
  // No CPU seen (a run shorter than the observer's one-second sampling) is no figure, not zero.
  const serverCpuMsPerUnit = cpuSeconds === undefined || cpuSeconds === 0 || units === 0 ? null : Math.round(((cpuSeconds * 1000) / units) * 1000) / 1000;
  const shareOfServerCpu = serverCpuMsPerUnit === null ? null : Math.round((sample.planningMsPerUnit / serverCpuMsPerUnit) * 1000) / 1000;
  const text = sample.textOverheadMsPerUnit;
  return {
    ...sample,
    serverCpuMsPerUnit,
    shareOfServerCpu,
    ...(text === undefined || serverCpuMsPerUnit === null ? {} : { textShareOfServerCpu: Math.round((text / serverCpuMsPerUnit) * 1000) / 1000 }),
  };
}
