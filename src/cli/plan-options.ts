import { defineOptions } from '../config/options.js';
import { BANK, SHOP } from '../capacity/demand.js';
import { CLOSING_OPTIONS } from '../session/options.js';

/** headroom plan's options: a preset business (chain runs) or any workload's events a day. */
export const PLAN_OPTIONS = defineOptions([
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
    long: 'demand-scale',
    type: 'number',
    min: 0.000001,
    value: 'N',
    help: "any workload: the -s at which its data is the business's size; a run at under a tenth of it is warned of (default: a module's demand.scale)",
  },
  {
    long: 'normalise',
    type: 'string',
    value: 'REFERENCE:YOURS',
    help: "with --events-per-day or a module's demand: the tps coefficient between a reference measurement and your run of its workload on this machine, and the plan as on the reference machine",
  },
  { long: 'peak-factor', type: 'number', min: 1, value: 'X', help: "peak load over the average (default: a module's demand, else 1)", default: 1 },
  { long: 'target-utilisation', type: 'number', min: 0.01, value: 'FRACTION', help: 'share of a machine the peak may use (0.01 to 1)', default: 0.7 },
  ...CLOSING_OPTIONS,
]);
