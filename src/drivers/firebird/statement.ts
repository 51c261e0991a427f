import type { Row, SqlValue, Statement } from '../driver.js';
import { withStatementText } from '../errors.js';
import { classifyFirebirdError } from './errors.js';
import { isCursor, type FirebirdWire, type PreparedStatement } from './wire/connection.js';

/** What a statement needs from its connection: the transaction to prepare and run in. */
export interface StatementHost {
  within<T>(work: (tx: number) => Promise<T>): Promise<T>;
  selectRows(prepared: PreparedStatement, params: readonly SqlValue[]): Promise<Row[]>;
}

/**
 * A prepared statement. run() sends the execute and the row-count request (op_info_sql) in one
 * write (a cursor's run() counts the rows all() reads); all() the execute and the first fetch. The
 * cursor is closed by its transaction's end (or, run again in the same transaction, by a close
 * sent with that execute). The connection may release the server's handle (a prepared statement keeps its
 * tables "in use" for DROP TABLE); it is prepared again on next use.
 */
export class FirebirdStatement implements Statement {
  private prepared: PreparedStatement | undefined;

  constructor(
    private readonly host: StatementHost,
    private readonly wire: FirebirdWire,
    private readonly sql: string,
  ) {}

  async bind(): Promise<void> {
    this.prepared ??= await this.host.within((tx) => this.wire.prepare(tx, this.sql));
  }

  /**
   * Frees the server's handle; the next run() or all() prepares again. The drop goes in front of
   * the connection's next request (wire.drop): under ptype_lazy_send the server holds back its
   * answer to a drop until it answers something else, so a drop sent alone and awaited would wait
   * for ever (a reload's DROP TABLE after "object in use" hung so). The server takes requests in
   * order, so the DROP TABLE that follows finds the statement gone.
   */
  release(): void {
    const prepared = this.prepared;
    this.prepared = undefined;
    if (prepared) this.wire.drop(prepared.handle);
  }

  async run(params: readonly SqlValue[] = []): Promise<number> {
    try {
      if (!this.prepared) await this.bind();
      const prepared = this.prepared!;
      // A SELECT whose rows nobody keeps (pgbench's select-only) runs as all() does: in autocommit
      // read-only mode that is one round trip, not three (start, execute and fetch, close and commit).
      if (isCursor(prepared)) return (await this.host.selectRows(prepared, params)).length;
      return await this.host.within((tx) => this.wire.executeCount(prepared, tx, params));
    } catch (error) {
      throw withStatementText(classifyFirebirdError(error), this.sql);
    }
  }

  async all(params: readonly SqlValue[] = []): Promise<Row[]> {
    try {
      if (!this.prepared) await this.bind();
      return await this.host.selectRows(this.prepared!, params);
    } catch (error) {
      throw withStatementText(classifyFirebirdError(error), this.sql);
    }
  }
}
