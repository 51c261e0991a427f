import { restoreUnlessUnanswered } from './post-run.js';
import { DbError } from '../drivers/errors.js';
import { redactArgv } from '../config/redact.js';
import { TOOL_VERSION } from '../result/build.js';
import { SWEEP_SCHEMA, kneeOf, kneePoints, type SweepResult } from '../result/sweep.js';
import type { RunResult } from '../result/result.js';
import { ResultOutput, defaultSweepPath } from '../result/write.js';
import { budgetRefusal, settledBudget } from './budget.js';
import { logLine } from './session.js';
import { measureOnce, type RunPlan } from './measure.js';

/**
 * The terminal sweep: one measured run per step on the data loaded once, back to back. The server
 * refusing connections ends it as a finding ("accepted N, refused at M"), not as an error; the
 * file is rewritten after every step, so a crash or Ctrl-C keeps the steps done. The caller writes
 * it the last time, after printing the table (output.save(sweep, true)); a file that cannot be
 * written moves to the fallback ResultOutput names, with every step in it.
 */
export async function runSweep(
  plan: RunPlan,
  steps: readonly number[],
  out: string | undefined,
  freeBeforeLoad: number | undefined,
): Promise<{ sweep: SweepResult; output: ResultOutput }> {
  const { session, workload } = plan;
  const sweep: SweepResult = {
    schema: SWEEP_SCHEMA,
    tool: { name: 'headroom', version: TOOL_VERSION },
    status: 'completed',
    startedAt: new Date().toISOString(),
    endedAt: '',
    clients: [...steps],
    argv: redactArgv(plan.argv),
    accepted: null,
    refusedAt: null,
    refusal: null,
    knee: null,
    steps: [],
  };
  const output = new ResultOutput(out ?? defaultSweepPath(workload.name, session.target.dbms, sweep.startedAt));
  // Paced (-R), every step's tps is the rate asked for while the server keeps up: no knee to read.
  const knee = (): number | null => (plan.rate === undefined ? kneeOf(kneePoints(sweep.steps)) : null);
  // A file is rewritten after every step; stdout (-o -) gets the sweep once, when it ends.
  const save = async (last = false): Promise<void> => {
    sweep.endedAt = new Date().toISOString();
    sweep.knee = knee();
    await output.save(sweep, last);
  };
  const refuse = (clients: number, why: string): void => {
    sweep.refusedAt ??= clients;
    sweep.refusal ??= why;
  };
  logLine(`sweep: ${steps.length} steps of ${workload.name}, ${steps.join(', ')} clients`);
  // Free places before the load, else before the first step: each step waits for the backends of
  // the load's extra connections and of the step before to go, under --force too, so a step is not
  // refused connections those still held.
  let freeAtStart = freeBeforeLoad;
  try {
    for (const [i, clients] of steps.entries()) {
      if (plan.signal.aborted) break;
      const budget = await settledBudget(plan.session, plan.signal, freeAtStart, (b) => plan.force || budgetRefusal(b, clients) === undefined);
      if (plan.signal.aborted) break;
      if (budget) freeAtStart ??= budget.max - budget.inUse;
      if (!plan.force) {
        const refusal = budgetRefusal(budget, clients);
        if (refusal) {
          refuse(clients, refusal.message);
          break;
        }
      }
      const result = await measureOnce(plan, clients, `, step ${i + 1} of ${steps.length}`).catch((error: unknown) => {
        if (!plan.force && error instanceof DbError && error.errorClass === 'capacity') return error;
        throw error;
      });
      if (result instanceof DbError) {
        refuse(clients, result.message);
        break;
      }
      sweep.steps.push(result);
      const { accepted, refused } = result.summary.connections;
      if (refused > 0) refuse(clients, `the server accepted ${accepted} of ${clients} connections`);
      else if (result.status === 'completed') sweep.accepted = clients;
      logLine(
        `step ${i + 1} of ${steps.length}: ${clients} clients, ${result.summary.tps.toFixed(1)} tps, p99 ${result.summary.latencyMs.p99.toFixed(3)} ms${stepLag(result)}, ${result.status}`,
      );
      if (result.status !== 'completed') {
        sweep.status = result.status;
        sweep.statusReason = `step ${clients}: ${result.statusReason ?? result.status}`;
      }
      await save();
      // A failed step ends the sweep, whatever failed. Failed work too (result/status.ts): a type
      // that throws fails at every count, and conflicts only grow with more terminals, so the steps
      // after it would measure failures; the knee rests on the steps that completed before it.
      if (result.status !== 'completed') break;
    }
  } catch (error) {
    // What the steps before measured is kept; the error itself is reported as usual.
    sweep.status = 'failed';
    sweep.statusReason = error instanceof Error ? error.message : String(error);
    await save(true);
    const unwritten = output.unwrittenLine('sweep');
    if (unwritten) logLine(unwritten);
    throw error;
  }
  if (plan.signal.aborted && sweep.status === 'completed') {
    sweep.status = 'interrupted';
    sweep.statusReason = 'interrupted by a signal';
  }
  // --set put back before the last save, so the steps' files record whether that worked.
  await restoreUnlessUnanswered(plan.session, plan.settings);
  sweep.endedAt = new Date().toISOString();
  sweep.knee = knee();
  return { sweep, output };
}

/** A paced step's schedule lag p99 for its progress line ("" for a closed-loop step). */
function stepLag(result: RunResult): string {
  const p99 = result.summary.scheduleLagMs?.p99;
  return p99 === undefined ? '' : `, lag p99 ${p99.toFixed(3)} ms`;
}
