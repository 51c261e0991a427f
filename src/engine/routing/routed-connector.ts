import { nodeTargets, serverTargetOf, type Target } from '../../config/target.js';
import type { Connection, Driver } from '../../drivers/driver.js';
import { loadDriver } from '../../drivers/registry.js';
import { Balancer, type Balance, type Route } from './balancer.js';
import { NodeStats } from '../../metrics/node-stats.js';
import { RoutingConnection } from './routing-connection.js';

/** --route and --balance, as plain data for the jobs. */
export interface Routing {
  route: Route;
  balance: Balance;
}

/** The name each node goes by in the result: primary, replica1, replica2, ... */
export function nodeNames(target: Target, routing: Routing): string[] {
  const server = serverTargetOf(target);
  if (!server || routing.route === 'none') return ['primary'];
  return nodeTargets(server).map((_, i) => (i === 0 ? 'primary' : `replica${i}`));
}

/**
 * One job's way to open routing connections: a driver per node (only the primary's under
 * --route none), and the per-node statistics the job's terminals share.
 */
export class RoutedConnector {
  private constructor(
    private readonly drivers: Driver[],
    private readonly routing: Routing,
    readonly stats: NodeStats,
  ) {}

  static async open(target: Target, routing: Routing): Promise<RoutedConnector> {
    const names = nodeNames(target, routing);
    const server = serverTargetOf(target);
    const targets = server ? nodeTargets(server).slice(0, names.length) : [target];
    return new RoutedConnector(await Promise.all(targets.map((t) => loadDriver(t))), routing, new NodeStats(names));
  }

  /** Opens one connection per node for terminal `terminal`; closes what it opened if one fails. */
  async connect(terminal: number): Promise<Connection> {
    const opened = await Promise.allSettled(this.drivers.map((d) => d.connect()));
    const failure = opened.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    const conns = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    if (failure) {
      await Promise.all(conns.map((c) => c.close().catch(() => {})));
      throw failure.reason;
    }
    const replicas = conns.length - 1;
    const balancer = replicas > 0 ? new Balancer(this.routing.balance, replicas, this.stats, terminal) : undefined;
    return new RoutingConnection(conns, this.stats, this.routing.route, balancer);
  }

  async close(): Promise<void> {
    await Promise.all(this.drivers.map((d) => d.close().catch(() => {})));
  }
}
