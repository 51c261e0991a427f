import type { OptionSpec } from '../config/options.js';
import { BANK, SHOP, bankUnitsPerSecond, shopUnitsPerSecond } from '../capacity/demand.js';
import { planCapacity } from '../capacity/plan.js';
import { smallDataWarning } from '../capacity/data-size.js';
import { UserError } from '../errors.js';
import type { RunResult } from '../result/result.js';
import { readResult } from '../result/read.js';
import { HELP_OPTION, VERBOSE_OPTION } from '../session/options.js';
import { planEvents } from './plan-events.js';
import { parseArgs } from '../config/args.js';

export const PLAN_OPTIONS: OptionSpec[] = [
  {
    long: 'preset',
    type: 'string',
    value: 'NAME',
    help: 'the business to carry: bank (clients x operations a day) or shop (orders, items, pages)',
    choices: ['bank', 'shop'],
    default: 'bank',
  },
  { long: 'clients', type: 'number', min: 1, value: 'N', help: 'bank: clients', default: BANK.clients },
  { long: 'ops-per-day', type: 'number', min: 0.001, value: 'N', help: 'bank: operations per client per day', default: BANK.operationsPerClientPerDay },
  { long: 'orders-per-second', type: 'number', min: 0.001, value: 'N', help: 'shop: orders per second', default: SHOP.ordersPerSecond },
  {
    long: 'items-per-order',
    type: 'number',
    min: 0,
    value: 'N',
    help: 'shop: items per order (an order is items + 1 write units)',
    default: SHOP.itemsPerOrder,
  },
  {
    long: 'pages-per-purchase',
    type: 'number',
    min: 0,
    value: 'N',
    help: 'shop: result pages browsed per purchase, one unit each',
    default: SHOP.pagesPerPurchase,
  },
  {
    long: 'browse-visits',
    type: 'number',
    min: 0,
    value: 'N',
    help: 'shop: visits that browse without buying, per purchase',
    default: SHOP.browseOnlyVisitsPerPurchase,
  },
  { long: 'events-per-day', type: 'number', min: 0.001, value: 'N', help: "any workload: the business's events a day (default: a module's demand)" },
  {
    long: 'transactions-per-event',
    type: 'number',
    min: 0.001,
    value: 'N',
    help: "any workload: transactions of the run's mix one event costs (default: a module's demand, else 1)",
  },
  {
    long: 'normalise',
    type: 'string',
    value: 'REFERENCE:YOURS',
    help: "with --events-per-day or a module's demand: the tps coefficient between a reference measurement and your run of its workload on this machine, and the plan as on the reference machine",
  },
  { long: 'peak-factor', type: 'number', min: 1, value: 'X', help: "peak load over the average (default: a module's demand, else 1)", default: 1 },
  { long: 'target-utilisation', type: 'number', min: 0.01, value: 'FRACTION', help: 'share of a machine the peak may use (0.01 to 1)', default: 0.7 },
  VERBOSE_OPTION,
  HELP_OPTION,
];

/** `headroom plan RESULT.json`: from a chain run's units/s to the headroom over a business and the machines it needs. */
export async function planCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals, given } = parseArgs(argv, PLAN_OPTIONS, 'plan');
  if (positionals.length !== 1) throw new UserError('"headroom plan" takes one result file', 'usage: headroom plan RESULT.json [--preset bank|shop]');
  const utilisation = values['target-utilisation'] as number;
  if (utilisation > 1) throw new UserError(`--target-utilisation must be at most 1, not ${utilisation}`, 'a fraction such as 0.7');
  const read = readResult(positionals[0]!);
  if (read.config.workload !== 'chain' || given.has('events-per-day')) return planEvents(read, positionals[0]!, values, given);
  const result = readChainResult(positionals[0]!);
  const preset = values['preset'] as string;
  const num = (name: string): number => values[name] as number;
  const required =
    preset === 'shop'
      ? shopUnitsPerSecond({
          ordersPerSecond: num('orders-per-second'),
          itemsPerOrder: num('items-per-order'),
          pagesPerPurchase: num('pages-per-purchase'),
          browseOnlyVisitsPerPurchase: num('browse-visits'),
        })
      : bankUnitsPerSecond({ clients: num('clients'), operationsPerClientPerDay: num('ops-per-day') });
  const plan = planCapacity(required, result.summary.tps, num('peak-factor'), utilisation);
  const f = (v: number, digits = 1): string => v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  process.stdout.write(
    [
      `measured: ${f(plan.measuredUnitsPerSecond)} units/s (${result.target.dbms}, ${result.config.clients} clients, scale ${result.config.scale}, ${positionals[0]})`,
      `required: ${f(plan.requiredUnitsPerSecond)} units/s (${preset})`,
      `headroom: ${f(plan.headroom, 2)}x`,
      `peak: ${f(plan.peakUnitsPerSecond)} units/s (x${num('peak-factor')}); machines at ${f(utilisation * 100, 0)}% utilisation: ${plan.machines}`,
      ...[smallDataWarning(result.config.scale, preset === 'bank' ? num('clients') : undefined)].filter((line) => line !== undefined),
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
