import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { OptionValuesOf } from '../config/options.js';
import type { PLAN_OPTIONS } from './plan-options.js';
import { eventCapacity } from '../capacity/event-demand.js';
import { planCapacity, scaleOutLine } from '../capacity/plan.js';
import { smallScaleWarning } from '../capacity/data-size.js';
import { UserError } from '../errors.js';
import type { DemandDefinition } from '../module/api.js';
import { loadWorkloadModule } from '../module/load-module.js';
import type { RunResult } from '../result/result.js';
import { logLine } from '../session/session.js';
import path from 'node:path';
import { normalisation } from '../reports/normalise.js';
import { readReference } from '../reports/reference.js';
import { readResult } from '../result/read.js';

/**
 * `headroom plan RESULT.json` for any workload: the business's events a day and what one event
 * costs in the workload's transactions (flags, else the module's `demand`), against the run's tps.
 */
export async function planEvents(result: RunResult, file: string, values: OptionValuesOf<typeof PLAN_OPTIONS>, given: Set<string>): Promise<number> {
  if (!(result.summary.tps > 0)) throw new UserError(`${file} measured no committed transactions`, 'plan from a completed run');
  const demand = await moduleDemand(result);
  const eventsPerDay = values['events-per-day'] ?? demand?.eventsPerDay;
  if (eventsPerDay === undefined) {
    throw new UserError(
      `${file} is a ${result.config.workload} run: plan needs the business's events a day`,
      'give --events-per-day N (and --transactions-per-event N), or a demand in the workload module',
    );
  }
  const perEvent = values['transactions-per-event'] ?? demand?.transactionsPerEvent ?? 1;
  if (typeof perEvent !== 'number') {
    for (const [type, cost] of Object.entries(perEvent))
      if (cost > 0 && !result.transactions.some((t) => t.name === type && t.count > 0))
        throw new UserError(`${file} ran no ${type} transaction, which the module's demand counts`, 'measure with the module as it is now');
  }
  const businessScale = values['demand-scale'] ?? demand?.scale;
  const peakFactor = given.has('peak-factor') ? values['peak-factor'] : (demand?.peakFactor ?? 1);
  const utilisation = values['target-utilisation'];
  const capacity = eventCapacity(eventsPerDay, perEvent, { tps: result.summary.tps, types: result.transactions });
  const plan = planCapacity(capacity.requiredEventsPerSecond, capacity.measuredEventsPerSecond, peakFactor, utilisation);
  const event = demand?.event ?? 'event';
  const f = (v: number, digits = 1): string => v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const cost =
    typeof perEvent === 'number'
      ? `${perEvent} transaction(s) of the run's mix`
      : Object.entries(perEvent)
          .map(([t, n]) => `${n} ${t}`)
          .join(' + ');
  const pair = values.normalise;
  const normalised =
    pair === undefined ? [] : normalisedLines(pair, plan.measuredUnitsPerSecond, capacity.requiredEventsPerSecond, peakFactor, utilisation, event);
  process.stdout.write(
    [
      `measured: ${f(result.summary.tps)} tps of ${result.config.workload} (${result.target.dbms}, ${result.config.clients} clients, scale ${result.config.scale}, ${file})`,
      `one ${event} costs ${cost}: ${f(plan.measuredUnitsPerSecond, 2)} ${event}s/s measured${capacity.estimated ? " (estimated: the run's types weighed by their average latency; a mix in the demand's ratios measures it)" : capacity.inRatios ? " (the run's mix is in the demand's ratios: measured as it ran, not estimated)" : ''}`,
      `required: ${f(plan.requiredUnitsPerSecond, 2)} ${event}s/s (${eventsPerDay.toLocaleString('en-US')} a day)`,
      `headroom: ${f(plan.headroom, 2)}x`,
      `peak: ${f(plan.peakUnitsPerSecond, 2)} ${event}s/s (x${peakFactor}); machines at ${f(utilisation * 100, 0)}% utilisation: ${plan.machines}`,
      scaleOutLine(plan, utilisation, `${event}s`),
      ...normalised,
      ...(businessScale === undefined ? [] : [smallScaleWarning(result.config.scale, businessScale)].filter((line) => line !== undefined)),
    ].join('\n') + '\n',
  );
  return 0;
}

/**
 * --normalise REFERENCE:YOURS: the reference's tps over your run's of the same workload on the same
 * DBMS (src/reports/normalise.ts), applied to the events/s measured here: the plan as if this run
 * had been made on the reference machine.
 */
function normalisedLines(pair: string, measured: number, required: number, peakFactor: number, utilisation: number, event: string): string[] {
  const parts = pair.split(':');
  if (parts.length !== 2 || parts.some((part) => part === ''))
    throw new UserError(`--normalise "${pair}" is not REFERENCE:YOURS`, 'e.g. --normalise reference/chain-study.json:my-chain-run.json');
  const yours = { file: parts[1]!, label: path.basename(parts[1]!).replace(/\.json$/i, ''), result: readResult(parts[1]!) };
  const coefficients = normalisation(readReference(parts[0]!), yours);
  const tps = coefficients.metrics.find((m) => m.name === 'tps');
  if (!tps) throw new UserError(`${pair}: the reference and your run have no tps in common`, 'normalise with a run that measured the reference workload');
  const plan = planCapacity(required, measured * tps.factor, peakFactor, utilisation);
  const f = (v: number, digits = 2): string => v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return [
    `normalised to ${coefficients.reference.label} (${coefficients.reference.workload} on ${coefficients.reference.dbms}): tps coefficient ${f(tps.factor, 3)} = reference ${f(tps.reference, 1)} / yours ${f(tps.yours, 1)}`,
    ...coefficients.notes.map((note) => `  note: ${note}`),
    `  on the reference machine: ${f(plan.measuredUnitsPerSecond)} ${event}s/s, headroom ${f(plan.headroom)}x, machines at ${f(utilisation * 100, 0)}% utilisation: ${plan.machines}`,
  ];
}

/** The demand of the module a result ran, read from the module file; a note when the file changed since. */
async function moduleDemand(result: RunResult): Promise<DemandDefinition | undefined> {
  const module = result.config.module;
  if (!module) return undefined;
  if (!existsSync(module.path)) {
    logLine(`note: the module ${module.path} is gone; its demand is not known (give --events-per-day and --transactions-per-event)`);
    return undefined;
  }
  if (createHash('sha256').update(readFileSync(module.path)).digest('hex') !== module.sha256)
    logLine(`note: ${module.path} has changed since the run; its demand is read as it is now`);
  return (await loadWorkloadModule(module.path, { names: [], options: [] })).demand;
}
