import { UserError } from '../errors.js';
import { defineOptions, type OptionValuesOf } from './options.js';
import { serverTargetOf, type Target } from './target.js';

/** --route: which statements go to replicas (engine/routing). */
export const ROUTES = ['none', 'read-only-transactions', 'split'] as const;
export type Route = (typeof ROUTES)[number];
/** --balance: how a replica is picked. */
export const BALANCES = ['round-robin', 'least-busy'] as const;
export type Balance = (typeof BALANCES)[number];

/** headroom run's routing options (run --help lists them where run's list puts them). */
export const ROUTING_OPTIONS = defineOptions([
  {
    long: 'route',
    type: 'string',
    value: 'MODE',
    choices: ROUTES,
    help: 'with ?replicas= in --db: none (all to the primary), read-only-transactions (read-only transaction types whole to a replica), split (reads to replicas until the transaction first writes)',
    default: 'none',
  },
  { long: 'balance', type: 'string', value: 'HOW', choices: BALANCES, help: 'how reads pick a replica', default: 'round-robin' },
]);

/** --route and --balance, checked against the target: routing needs replicas to route to. */
export function routingOf(values: OptionValuesOf<typeof ROUTING_OPTIONS>, target: Target): { route: Route; balance: Balance } | undefined {
  const { route, balance } = values;
  const replicas = serverTargetOf(target)?.replicas;
  if (route !== 'none' && !replicas) {
    throw new UserError(
      `--route ${route} needs replicas to route to`,
      'list them in the URL: --db postgres://u@primary:5432/db?replicas=host2:5432,host3:5432',
    );
  }
  return replicas ? { route, balance } : undefined;
}
