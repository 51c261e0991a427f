import { bankUnitsPerSecond, shopUnitsPerSecond } from '../capacity/demand.js';
import { planCapacity, scaleOutLine } from '../capacity/plan.js';
import { smallDataWarning } from '../capacity/data-size.js';
import { UserError } from '../errors.js';
import type { RunResult } from '../result/result.js';
import { readResult } from '../result/read.js';
import { planEvents } from './plan-events.js';
import { parseArgs } from '../config/args.js';
import { PLAN_OPTIONS } from './plan-options.js';
import type { OptionValuesOf } from '../config/options.js';

export { PLAN_OPTIONS };

/** `headroom plan RESULT.json`: from a chain run's units/s to the headroom over a business and the machines it needs. */
export async function planCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals, given } = parseArgs(argv, PLAN_OPTIONS, 'plan');
  if (positionals.length !== 1) throw new UserError('"headroom plan" takes one result file', 'usage: headroom plan RESULT.json [--preset bank|shop]');
  const utilisation = values['target-utilisation'];
  if (utilisation > 1) throw new UserError(`--target-utilisation must be at most 1, not ${utilisation}`, 'a fraction such as 0.7');
  const read = readResult(positionals[0]!);
  if (read.config.workload !== 'chain' || given.has('events-per-day')) return planEvents(read, positionals[0]!, values, given);
  if (given.has('demand-scale'))
    throw new UserError('--demand-scale applies to plans in events (--events-per-day)', "a chain preset's size is its clients: --clients for the bank");
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
      `required: ${f(plan.requiredUnitsPerSecond)} units/s (${presetText(preset, values, given)})`,
      `headroom: ${f(plan.headroom, 2)}x`,
      `peak: ${f(plan.peakUnitsPerSecond)} units/s (x${values['peak-factor']}); machines at ${f(utilisation * 100, 0)}% utilisation: ${plan.machines}`,
      scaleOutLine(plan, utilisation, 'units'),
      ...[smallDataWarning(result.config.scale, preset === 'bank' ? values.clients : undefined)].filter((line) => line !== undefined),
    ].join('\n') + '\n',
  );
  return 0;
}

/**
 * The preset as the plan counted it. The bank's operations are spread evenly over the day, so its
 * peak is its average unless --peak-factor says otherwise: said, since a real bank's day is not flat.
 */
function presetText(preset: 'bank' | 'shop', values: OptionValuesOf<typeof PLAN_OPTIONS>, given: Set<string>): string {
  const factor = given.has('peak-factor')
    ? `peak factor ${values['peak-factor']} (--peak-factor)`
    : `peak factor ${values['peak-factor']}: the average is the peak, as if the day were flat; give --peak-factor for the busiest hour's share`;
  if (preset === 'shop') return `shop: ${values['orders-per-second']} orders/s of ${values['items-per-order']} items; ${factor}`;
  return `bank: ${values.clients.toLocaleString('en-US')} clients x ${values['ops-per-day']} operations a day, spread evenly over 24 hours; ${factor}`;
}

function readChainResult(file: string): RunResult {
  const result = readResult(file);
  // Only the chain workload's unit is the unit the demand is counted in.
  if (result.config.workload !== 'chain')
    throw new UserError(`${file} is a ${result.config.workload} run; plan counts chain model units`, 'measure with: headroom run chain');
  if (!(result.summary.tps > 0)) throw new UserError(`${file} measured no committed units`, 'use a completed chain run');
  return result;
}
