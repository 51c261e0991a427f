import type { Socket as NetSocket } from 'node:net';
import type { Database, Transaction } from 'node-firebird';
import { firebird } from './library.js';
import type WireConnection from 'node-firebird/lib/wire/connection.js';
import type { ServerTarget } from '../../config/target.js';
import type { Connection, Row, SqlValue, Statement } from '../driver.js';
import { classifyFirebirdError, isObjectInUse } from './errors.js';
import { FirebirdStatement, wireParams } from './statement.js';

interface TransactionOptions {
  isolation: number[];
  wait: boolean;
  readOnly: boolean;
}

/**
 * Read committed, record version (Firebird's usual read committed: readers never wait for
 * writers), waiting on row locks so a conflict ends as isc_deadlock/isc_update_conflict once the
 * other writer finishes. node-firebird calls this pair ISOLATION_READ_UNCOMMITTED.
 * Read-only (isc_tpb_read) where the transaction declared itself so: Firebird starts a read-only
 * read-committed transaction pre-committed, without writing the header page's next transaction
 * number, which with forced writes is a synchronous page write for every other transaction start.
 */
let options: { readWrite: TransactionOptions; readOnly: TransactionOptions } | undefined;
function transactionOptions(readOnly: boolean): TransactionOptions {
  if (options === undefined) {
    const isolation = firebird().Firebird.ISOLATION_READ_UNCOMMITTED;
    options = { readWrite: { isolation, wait: true, readOnly: false }, readOnly: { isolation, wait: true, readOnly: true } };
  }
  return readOnly ? options.readOnly : options.readWrite;
}

/**
 * Limits of one EXECUTE BLOCK in bulkInsert: every INSERT is a context and a statement may hold
 * 255 of them; Firebird 3 caps a statement's text at 64 KB.
 */
const BULK_BLOCK_ROWS = 250;
const BULK_BLOCK_BYTES = 60_000;

/**
 * Firebird runs every statement inside a transaction it was told to start. Between begin() and
 * commit()/rollback() statements share that transaction; outside, each query() and each
 * Statement call runs in a transaction of its own that commits when it succeeds and rolls back
 * when it fails (autocommit, as the other DBMSs behave).
 */
export class FirebirdConnection implements Connection {
  private readonly statements = new Map<string, FirebirdStatement>();
  private tx: Transaction | undefined;
  /** Set by declareReadOnly(): the transactions started from now on are read-only. */
  private readOnly = false;

  constructor(
    private readonly db: Database,
    private readonly target: ServerTarget,
  ) {
    // A socket error between calls would otherwise be an unhandled 'error' event.
    (db as unknown as { on(event: string, listener: () => void): void }).on('error', () => {});
  }

  async within<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    if (this.tx) {
      try {
        return await work(this.tx);
      } catch (error) {
        throw classifyFirebirdError(error);
      }
    }
    let tx: Transaction | undefined;
    try {
      tx = await this.db.transactionAsync(transactionOptions(this.readOnly));
      const result = await work(tx);
      await tx.commitAsync();
      return result;
    } catch (error) {
      if (tx) await tx.rollbackAsync().catch(() => {});
      throw classifyFirebirdError(error);
    }
  }

  async prepare(sql: string): Promise<Statement> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = new FirebirdStatement(this, sql);
      await statement.bind();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async query(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    const execute = (): Promise<Row[]> => this.within(async (tx) => ((await tx.executeAsync(sql, wireParams(params))) ?? []) as Row[]);
    try {
      return await execute();
    } catch (error) {
      // A statement this attachment prepared keeps its tables in use, and DROP TABLE (e.g. a
      // reload) fails on them: release them all (they prepare again when used) and try once more.
      if (this.tx || this.statements.size === 0 || !isObjectInUse(error)) throw error;
      for (const statement of this.statements.values()) await statement.release();
      return execute();
    }
  }

  async begin(): Promise<void> {
    if (this.tx) throw classifyFirebirdError(new Error('begin() inside an open transaction'));
    try {
      this.tx = await this.db.transactionAsync(transactionOptions(this.readOnly));
    } catch (error) {
      throw classifyFirebirdError(error);
    }
  }

  declareReadOnly(readOnly: boolean): void {
    this.readOnly = readOnly;
  }

  async commit(): Promise<void> {
    await this.end((tx) => tx.commitAsync());
  }

  async rollback(): Promise<void> {
    await this.end((tx) => tx.rollbackAsync());
  }

  /**
   * EXECUTE BLOCK with as many INSERTs as fit in one statement's text, all in one transaction:
   * it was faster than one prepared insert executed per row (bench/firebird-driver-cpu/README.md).
   */
  async bulkInsert(table: string, columns: readonly string[], rows: Iterable<readonly SqlValue[]>): Promise<number> {
    const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (`;
    const own = !this.tx;
    if (own) await this.begin();
    let count = 0;
    try {
      let body: string[] = [];
      let bytes = 0;
      const flush = async (): Promise<void> => {
        if (body.length === 0) return;
        await this.query(`EXECUTE BLOCK AS BEGIN\n${body.join('\n')}\nEND`);
        body = [];
        bytes = 0;
      };
      for (const row of rows) {
        const line = `${head}${row.map(literal).join(', ')});`;
        if (body.length === BULK_BLOCK_ROWS || bytes + Buffer.byteLength(line) > BULK_BLOCK_BYTES) await flush();
        body.push(line);
        bytes += Buffer.byteLength(line) + 1;
        count++;
      }
      await flush();
      if (own) await this.commit();
    } catch (error) {
      if (own) await this.rollback().catch(() => {});
      throw classifyFirebirdError(error, this.target);
    }
    return count;
  }

  async close(): Promise<void> {
    this.tx = undefined;
    // force: detach even with requests outstanding (node-firebird would otherwise wait for them
    // forever on an attachment the server killed); then make sure the socket is gone.
    await this.db.detachAsync(true).catch(() => {});
    const cnx = (this.db as unknown as { connection?: WireConnection }).connection;
    if (cnx) destroySocket(cnx);
  }

  private async end(finish: (tx: Transaction) => Promise<void>): Promise<void> {
    const tx = this.tx;
    this.tx = undefined;
    if (!tx) return;
    try {
      await finish(tx);
    } catch (error) {
      throw classifyFirebirdError(error);
    }
  }
}

/** node-firebird's socket is a proxy that hands what it lacks (destroy) to the net.Socket. */
export function destroySocket(cnx: WireConnection): void {
  (cnx._socket as unknown as NetSocket).destroy();
}


/** SQL literal for EXECUTE BLOCK bodies, which take no parameters here. */
function literal(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot load ${value} into Firebird`);
    return String(value);
  }
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return `TIMESTAMP '${value.toISOString().replace('T', ' ').replace('Z', '')}'`;
  return `'${value.replace(/'/g, "''")}'`;
}
