import type { Connection, Row, SqlValue, Statement } from '../../drivers/driver.js';
import type { Balancer, Route } from './balancer.js';
import { readsOnly } from './classify.js';
import type { NodeStats } from '../../metrics/node-stats.js';

const PRIMARY = 0;

/**
 * One terminal's connection to a primary and its replicas, one connection per node, routing each
 * statement as --route says (README, "Replicas and read routing"):
 *
 * - none: everything to the primary.
 * - read-only-transactions: a transaction whose type declares itself read-only (declareReadOnly)
 *   runs whole on one replica; every other transaction on the primary.
 * - split: a statement classified as a read at prepare time goes to a replica, inside any
 *   transaction, until the transaction's first write; the write and everything after it go to the
 *   primary. A read before the first write therefore sees a replica's snapshot, possibly older
 *   than the primary's, but never misses the transaction's own writes, which all come after it.
 *
 * BEGIN is sent lazily, to the node that runs the transaction's first statement that needs one;
 * split reads on a replica run outside a transaction (each its own snapshot).
 */
export class RoutingConnection implements Connection {
  private inTransaction = false;
  /** split: the transaction has sent a statement to the primary; all further ones go there. */
  private onPrimary = false;
  /** read-only-transactions: the replica of the declared read-only transaction. */
  private pinned: number | undefined;
  private readonly begun = new Set<number>();

  constructor(
    private readonly nodes: readonly Connection[],
    private readonly stats: NodeStats,
    private readonly route: Route,
    private readonly balancer: Balancer | undefined,
  ) {}

  declareReadOnly(readOnly: boolean): void {
    this.pinned = readOnly && this.route === 'read-only-transactions' && this.balancer ? this.balancer.pick() : undefined;
  }

  async prepare(sql: string): Promise<Statement> {
    return new RoutedStatement(this, sql, readsOnly(sql));
  }

  query(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.execute(readsOnly(sql), (conn) => conn.query(sql, params));
  }

  async begin(): Promise<void> {
    await this.finish('rollback');
    this.inTransaction = true;
    this.onPrimary = false;
  }

  commit(): Promise<void> {
    return this.finish('commit');
  }

  rollback(): Promise<void> {
    return this.finish('rollback');
  }

  bulkInsert(table: string, columns: readonly string[], rows: Iterable<readonly SqlValue[]>): Promise<number> {
    return this.nodes[PRIMARY]!.bulkInsert(table, columns, rows);
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.close().catch(() => {})));
  }

  pendingRequest(): string | undefined {
    for (const node of this.nodes) {
      const pending = node.pendingRequest?.();
      if (pending !== undefined) return pending;
    }
    return undefined;
  }

  /** Runs one statement on the node the route chooses, counting it in that node's statistics. */
  async execute<T>(read: boolean, action: (conn: Connection, node: number) => Promise<T>): Promise<T> {
    const node = this.nodeFor(read);
    // BEGIN goes where the transaction runs: the primary, or the pinned replica; split reads run alone.
    if (this.inTransaction && !this.begun.has(node) && (node === PRIMARY || node === this.pinned)) {
      this.begun.add(node);
      await this.nodes[node]!.begin();
    }
    this.stats.inFlight[node]!++;
    const started = performance.now();
    try {
      return await action(this.nodes[node]!, node);
    } finally {
      this.stats.inFlight[node]!--;
      this.stats.statement(node, read, (performance.now() - started) * 1000);
    }
  }

  private nodeFor(read: boolean): number {
    if (this.route === 'read-only-transactions') return this.pinned ?? PRIMARY;
    if (this.route !== 'split' || !this.balancer) return PRIMARY;
    if (read && !(this.inTransaction && this.onPrimary)) return this.balancer.pick();
    if (this.inTransaction) this.onPrimary = true;
    return PRIMARY;
  }

  private async finish(how: 'commit' | 'rollback'): Promise<void> {
    const nodes = [...this.begun];
    this.begun.clear();
    this.inTransaction = false;
    this.onPrimary = false;
    let failure: unknown;
    for (const node of nodes) {
      try {
        await (how === 'commit' ? this.nodes[node]!.commit() : this.nodes[node]!.rollback());
        this.stats.transaction(node);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }
}

/** A statement prepared lazily on each node the first time it runs there. */
class RoutedStatement implements Statement {
  private readonly prepared: (Promise<Statement> | undefined)[] = [];

  constructor(
    private readonly router: RoutingConnection,
    private readonly sql: string,
    private readonly read: boolean,
  ) {}

  run(params?: readonly SqlValue[]): Promise<number> {
    return this.router.execute(this.read, async (conn, node) => (await this.on(conn, node)).run(params));
  }

  all(params?: readonly SqlValue[]): Promise<Row[]> {
    return this.router.execute(this.read, async (conn, node) => (await this.on(conn, node)).all(params));
  }

  private on(conn: Connection, node: number): Promise<Statement> {
    const cached = this.prepared[node];
    if (cached) return cached;
    const made = conn.prepare(this.sql);
    // A failed prepare (a lost connection) is tried again next time rather than cached.
    made.catch(() => (this.prepared[node] = undefined));
    return (this.prepared[node] = made);
  }
}
