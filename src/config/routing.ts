import { UserError } from '../errors.js';
import type { OptionValues } from './options.js';
import { serverTargetOf, type Target } from './target.js';

/** --route: which statements go to replicas (engine/routing). */
export const ROUTES = ['none', 'read-only-transactions', 'split'] as const;
export type Route = (typeof ROUTES)[number];
/** --balance: how a replica is picked. */
export const BALANCES = ['round-robin', 'least-busy'] as const;
export type Balance = (typeof BALANCES)[number];

/** --route and --balance, checked against the target: routing needs replicas to route to. */
export function routingOf(values: OptionValues, target: Target): { route: Route; balance: Balance } | undefined {
  const route = values['route'] as Route;
  const balance = values['balance'] as Balance;
  const replicas = serverTargetOf(target)?.replicas;
  if (route !== 'none' && !replicas) {
    throw new UserError(
      `--route ${route} needs replicas to route to`,
      'list them in the URL: --db postgres://u@primary:5432/db?replicas=host2:5432,host3:5432',
    );
  }
  return replicas ? { route, balance } : undefined;
}
