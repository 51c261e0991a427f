import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { OptionValues } from '../config/options.js';
import { eventCapacity } from '../capacity/event-demand.js';
import { planCapacity } from '../capacity/plan.js';
import { UserError } from '../errors.js';
import type { DemandDefinition } from '../module/api.js';
import { loadWorkloadModule } from '../module/load-module.js';
import type { RunResult } from '../result/result.js';
import { logLine } from './common.js';

/**
 * `headroom plan RESULT.json` for any workload: the business's events a day and what one event
 * costs in the workload's transactions (flags, else the module's `demand`), against the run's tps.
 */
export async function planEvents(result: RunResult, file: string, values: OptionValues, given: Set<string>): Promise<number> {
  if (!(result.summary.tps > 0)) throw new UserError(`${file} measured no committed transactions`, 'plan from a completed run');
  const demand = await moduleDemand(result);
  const eventsPerDay = (given.has('events-per-day') ? (values['events-per-day'] as number) : undefined) ?? demand?.eventsPerDay;
  if (eventsPerDay === undefined) {
    throw new UserError(`${file} is a ${result.config.workload} run: plan needs the business's events a day`, 'give --events-per-day N (and --transactions-per-event N), or a demand in the workload module');
  }
  const perEvent = given.has('transactions-per-event') ? (values['transactions-per-event'] as number) : (demand?.transactionsPerEvent ?? 1);
  if (typeof perEvent !== 'number') {
    for (const [type, cost] of Object.entries(perEvent)) if (cost > 0 && !result.transactions.some((t) => t.name === type && t.count > 0)) throw new UserError(`${file} ran no ${type} transaction, which the module's demand counts`, 'measure with the module as it is now');
  }
  const peakFactor = given.has('peak-factor') ? (values['peak-factor'] as number) : (demand?.peakFactor ?? 1);
  const utilisation = values['target-utilisation'] as number;
  const capacity = eventCapacity(eventsPerDay, perEvent, { tps: result.summary.tps, types: result.transactions });
  const plan = planCapacity(capacity.requiredEventsPerSecond, capacity.measuredEventsPerSecond, peakFactor, utilisation);
  const event = demand?.event ?? 'event';
  const f = (v: number, digits = 1): string => v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const cost = typeof perEvent === 'number' ? `${perEvent} transaction(s) of the run's mix` : Object.entries(perEvent).map(([t, n]) => `${n} ${t}`).join(' + ');
  process.stdout.write(
    [
      `measured: ${f(result.summary.tps)} tps of ${result.config.workload} (${result.target.dbms}, ${result.config.clients} clients, scale ${result.config.scale}, ${file})`,
      `one ${event} costs ${cost}: ${f(plan.measuredUnitsPerSecond, 2)} ${event}s/s measured${capacity.estimated ? " (estimated: the run's types weighed by their average latency; a mix in the demand's ratios measures it)" : ''}`,
      `required: ${f(plan.requiredUnitsPerSecond, 2)} ${event}s/s (${eventsPerDay.toLocaleString('en-US')} a day)`,
      `headroom: ${f(plan.headroom, 2)}x`,
      `peak: ${f(plan.peakUnitsPerSecond, 2)} ${event}s/s (x${peakFactor}); machines at ${f(utilisation * 100, 0)}% utilisation: ${plan.machines}`,
    ].join('\n') + '\n',
  );
  return 0;
}

/** The demand of the module a result ran, read from the module file; a note when the file changed since. */
async function moduleDemand(result: RunResult): Promise<DemandDefinition | undefined> {
  const module = result.config.module;
  if (!module) return undefined;
  if (!existsSync(module.path)) {
    logLine(`note: the module ${module.path} is gone; its demand is not known (give --events-per-day and --transactions-per-event)`);
    return undefined;
  }
  if (createHash('sha256').update(readFileSync(module.path)).digest('hex') !== module.sha256) logLine(`note: ${module.path} has changed since the run; its demand is read as it is now`);
  return (await loadWorkloadModule(module.path, { names: [], options: [] })).demand;
}
