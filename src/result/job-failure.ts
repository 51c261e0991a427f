import type { EngineOutcome } from '../engine/engine.js';

/** The status reason of a run a failed job ended: what failed, and what the totals then leave out. */
export function jobFailureReason(outcome: Pick<EngineOutcome, 'jobFailure' | 'lostJobs'>): string {
  const lost = outcome.lostJobs > 0 ? `; the totals leave out the terminals of ${outcome.lostJobs} job(s) whose thread died` : '';
  return `a job failed mid-run, the run was stopped: ${outcome.jobFailure?.message ?? 'unknown error'}${lost}`;
}
