import type { Connection, LagSample } from '../driver.js';

const STATUS = "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_recv_queue', 'wsrep_flow_control_paused', 'wsrep_last_committed')";

/**
 * Galera replicates synchronously but applies asynchronously: a node's receive queue holds write
 * sets it has certified but not applied, flow control pauses the whole cluster while a queue is
 * too long (wsrep_flow_control_paused: the fraction of time paused since the last FLUSH STATUS),
 * and wsrep_last_committed shows how many transactions a node trails the most advanced one.
 */
export async function galeraLag(primary: Connection, replicas: readonly Connection[]): Promise<LagSample[]> {
  const nodes = await Promise.all(
    [primary, ...replicas].map(async (conn) => {
      const status = new Map(((await conn.query(STATUS)) as [string, string][]).map(([name, value]) => [name.toLowerCase(), Number(value)]));
      // Asynchronous MariaDB replication has none of these; its lag is not sampled (yet).
      if (!status.has('wsrep_last_committed')) throw new Error('a node is not a Galera node (no wsrep status): lag is sampled on Galera clusters only');
      return {
        recvQueue: status.get('wsrep_local_recv_queue') ?? 0,
        paused: status.get('wsrep_flow_control_paused') ?? 0,
        committed: status.get('wsrep_last_committed') ?? 0,
      };
    }),
  );
  const newest = Math.max(...nodes.map((n) => n.committed));
  // The primary comes first in the nodes but the sample lists the replicas only, as for PostgreSQL.
  return nodes.slice(1).map((n) => ({ recvQueue: n.recvQueue, flowControlPaused: n.paused, behindTransactions: newest - n.committed }));
}
