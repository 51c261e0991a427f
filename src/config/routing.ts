import { UserError } from '../errors.js';
import type { Balance, Route } from '../engine/routing/balancer.js';
import type { OptionValues } from './options.js';
import type { Target } from './target.js';

/** --route and --balance, checked against the target: routing needs replicas to route to. */
export function routingOf(values: OptionValues, target: Target): { route: Route; balance: Balance } | undefined {
  const route = values['route'] as Route;
  const balance = values['balance'] as Balance;
  const replicas = target.dbms === 'sqlite' ? undefined : target.replicas;
  if (route !== 'none' && !replicas) {
    throw new UserError(`--route ${route} needs replicas to route to`, 'list them in the URL: --db postgres://u@primary:5432/db?replicas=host2:5432,host3:5432');
  }
  return replicas ? { route, balance } : undefined;
}
