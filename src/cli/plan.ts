import { bankUnitsPerSecond, shopUnitsPerSecond } from '../capacity/demand.js';
import { planCapacity } from '../capacity/plan.js';
import { smallDataWarning } from '../capacity/data-size.js';
import { UserError } from '../errors.js';
import type { RunResult } from '../result/result.js';
import { readResult } from '../result/read.js';
import { planEvents } from './plan-events.js';
import { parseArgs } from '../config/args.js';
import { PLAN_OPTIONS } from './plan-options.js';

export { PLAN_OPTIONS };

/** `headroom plan RESULT.json`: from a chain run's units/s to the headroom over a business and the machines it needs. */
export async function planCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals, given } = parseArgs(argv, PLAN_OPTIONS, 'plan');
  if (positionals.length !== 1) throw new UserError('"headroom plan" takes one result file', 'usage: headroom plan RESULT.json [--preset bank|shop]');
  const utilisation = values['target-utilisation'];
  if (utilisation > 1) throw new UserError(`--target-utilisation must be at most 1, not ${utilisation}`, 'a fraction such as 0.7');
  const read = readResult(positionals[0]!);
  if (read.config.workload !== 'chain' || given.has('events-per-day')) return planEvents(read, positionals[0]!, values, given);
  const result = readChainResult(positionals[0]!);
  const preset = values.preset;
  const required =
    preset === 'shop'
      ? shopUnitsPerSecond({
          ordersPerSecond: values['orders-per-second'],
          itemsPerOrder: values['items-per-order'],
          pagesPerPurchase: values['pages-per-purchase'],
          browseOnlyVisitsPerPurchase: values['browse-visits'],
        })
      : bankUnitsPerSecond({ clients: values.clients, operationsPerClientPerDay: values['ops-per-day'] });
  const plan = planCapacity(required, result.summary.tps, values['peak-factor'], utilisation);
  const f = (v: number, digits = 1): string => v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  process.stdout.write(
    [
      `measured: ${f(plan.measuredUnitsPerSecond)} units/s (${result.target.dbms}, ${result.config.clients} clients, scale ${result.config.scale}, ${positionals[0]})`,
      `required: ${f(plan.requiredUnitsPerSecond)} units/s (${preset})`,
      `headroom: ${f(plan.headroom, 2)}x`,
      `peak: ${f(plan.peakUnitsPerSecond)} units/s (x${values['peak-factor']}); machines at ${f(utilisation * 100, 0)}% utilisation: ${plan.machines}`,
      ...[smallDataWarning(result.config.scale, preset === 'bank' ? values.clients : undefined)].filter((line) => line !== undefined),
    ].join('\n') + '\n',
  );
  return 0;
}

function readChainResult(file: string): RunResult {
  const result = readResult(file);
  // Only the chain workload's unit is the unit the demand is counted in.
  if (result.config.workload !== 'chain')
    throw new UserError(`${file} is a ${result.config.workload} run; plan counts chain model units`, 'measure with: headroom run chain');
  if (!(result.summary.tps > 0)) throw new UserError(`${file} measured no committed units`, 'use a completed chain run');
  return result;
}
