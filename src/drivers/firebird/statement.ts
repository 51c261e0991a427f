import type { Statement as NativeStatement, Transaction } from 'node-firebird';
import { firebird } from './library.js';
import type { Row, SqlValue, Statement } from '../driver.js';

export interface WireStatement extends NativeStatement {
  connection: { statementInfo(statement: NativeStatement, items: readonly number[], callback: (err: unknown, info?: { buffer?: Buffer }) => void): void };
}

/** What a statement needs from its connection: the transaction to prepare and run in. */
export interface StatementHost {
  within<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}

/**
 * A prepared statement. Firebird answers an execute with no row count, so run() asks for it
 * (op_info_sql) and all() fetches the rows; both requests are written right behind the execute
 * and share its round trip (bench/firebird-driver-cpu). The connection may release the server's
 * handle (a prepared statement keeps its tables "in use" for DROP TABLE); it is prepared again on
 * next use.
 */
export class FirebirdStatement implements Statement {
  private prepared: WireStatement | undefined;

  constructor(
    private readonly host: StatementHost,
    private readonly sql: string,
  ) {}

  async bind(): Promise<void> {
    this.prepared ??= (await this.host.within((tx) => tx.newStatementAsync(this.sql))) as WireStatement;
  }

  /** Frees the server's handle; the next run() or all() prepares again. */
  async release(): Promise<void> {
    const prepared = this.prepared;
    this.prepared = undefined;
    await prepared?.dropAsync().catch(() => {});
  }

  async run(params: readonly SqlValue[] = []): Promise<number> {
    await this.bind();
    const prepared = this.prepared!;
    return this.host.within((tx) =>
      new Promise<number>((resolve, reject) => {
        let failed: unknown;
        prepared.execute(tx, wireParams(params), (err) => {
          if (err) failed = err;
        });
        prepared.connection.statementInfo(prepared, firebird().wire.RECORDS_INFO, (err, info) => {
          if (failed !== undefined || err) return reject(failed ?? err);
          const counts = firebird().parseRecordCounts(info?.buffer);
          resolve(counts ? counts.insertCount + counts.updateCount + counts.deleteCount : 0);
        });
      }),
    );
  }

  async all(params: readonly SqlValue[] = []): Promise<Row[]> {
    await this.bind();
    const prepared = this.prepared!;
    return this.host.within((tx) =>
      new Promise<Row[]>((resolve, reject) => {
        let failed: unknown;
        let fetched: Row[] = [];
        // fetchAll may finish its rows after the close's answer has arrived: settle once both are done.
        let pending = 2;
        const done = (): void => {
          if (--pending > 0) return;
          if (failed !== undefined) reject(failed);
          else resolve(fetched);
        };
        prepared.execute(tx, wireParams(params), (err) => {
          if (err) failed = err;
        });
        prepared.fetchAll(tx, (err, rows) => {
          if (err) failed ??= err;
          fetched = (rows ?? []) as Row[];
          done();
        });
        // The cursor stays open after the last row until it is closed: without this, the same
        // statement run again in one transaction fails with "Attempt to reopen an open cursor"
        // (TPC-C's New-Order reads item and stock once per order line). Same round trip.
        prepared.close((err: unknown) => {
          if (err) failed ??= err;
          done();
        });
      }),
    );
  }
}

/**
 * node-firebird drops the connection when handed a bigint (2.17); BIGINT columns take the
 * decimal text just as well.
 */
export function wireParams(params: readonly SqlValue[]): unknown[] {
  return params.map((v) => (typeof v === 'bigint' ? v.toString() : v));
}
