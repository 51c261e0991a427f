import type { ServerTarget } from '../../config/target.js';
import type { Connection, Row, SqlValue, Statement } from '../driver.js';
import { classifyFirebirdError, isObjectInUse } from './errors.js';
import { withStatementText } from '../errors.js';
import { FirebirdStatement } from './statement.js';
import { isCursor, MISPREDICTED, transactionBlock, type FirebirdWire, type PreparedStatement } from './wire/connection.js';

/**
 * Read committed, record version (Firebird's usual read committed: readers never wait for
 * writers), waiting on row locks so a conflict ends as isc_deadlock/isc_update_conflict once the
 * other writer finishes.
 * Read-only (isc_tpb_read) where the transaction declared itself so: Firebird starts a read-only
 * read-committed transaction pre-committed, without writing the header page's next transaction
 * number, which with forced writes is a synchronous page write for every other transaction start.
 */
const READ_WRITE = transactionBlock({ isolation: 'read-committed', wait: true, readOnly: false });
const READ_ONLY = transactionBlock({ isolation: 'read-committed', wait: true, readOnly: true });
const noop = (): void => {};

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
  private tx: number | undefined;
  /** Autocommit reads whose transaction handle was not the one expected (they ran again the slow way). */
  mispredicted = 0;
  /** Set by declareReadOnly(): the transactions started from now on are read-only. */
  private readOnly = false;

  constructor(
    readonly wire: FirebirdWire,
    private readonly target: ServerTarget,
  ) {}

  async within<T>(work: (tx: number) => Promise<T>): Promise<T> {
    if (this.tx !== undefined) {
      try {
        return await work(this.tx);
      } catch (error) {
        throw classifyFirebirdError(error);
      }
    }
    let tx: number | undefined;
    try {
      tx = await this.wire.startTransaction(this.readOnly ? READ_ONLY : READ_WRITE);
      const result = await work(tx);
      await this.wire.commit(tx);
      return result;
    } catch (error) {
      if (tx !== undefined) await this.wire.rollback(tx).catch(noop);
      throw classifyFirebirdError(error);
    }
  }

  /**
   * A prepared cursor's rows. Outside a transaction in read-only mode (select-only's SELECT) the
   * execute, fetch and commit share one write after the transaction's start: two round trips
   * instead of three. Rows that do not fit one fetch are read again in a transaction of their own.
   */
  async selectRows(prepared: PreparedStatement, params: readonly SqlValue[]): Promise<Row[]> {
    if (this.tx === undefined && this.readOnly && isCursor(prepared) && this.wire.lastTransaction !== 0) {
      try {
        const rows = await this.wire.selectInNextTransaction(READ_ONLY, prepared, params);
        if (rows === MISPREDICTED) this.mispredicted++;
        else if (rows) return rows;
      } catch (error) {
        throw classifyFirebirdError(error);
      }
    } else if (this.tx === undefined && this.readOnly && isCursor(prepared)) {
      let tx: number | undefined;
      try {
        tx = await this.wire.startTransaction(READ_ONLY);
        const rows = await this.wire.executeRowsThenCommit(prepared, tx, params);
        if (rows) return rows;
      } catch (error) {
        // After a failed execute the pipelined commit has usually ended the transaction already.
        if (tx !== undefined) await this.wire.rollback(tx).catch(noop);
        throw classifyFirebirdError(error);
      }
    }
    return this.within((tx) => this.wire.executeRows(prepared, tx, params));
  }

  async prepare(sql: string): Promise<Statement> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = new FirebirdStatement(this, this.wire, sql);
      await statement.bind();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async query(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    // An unprepared statement: prepared, run and dropped (its handle would keep its tables in use).
    const execute = (): Promise<Row[]> =>
      this.within(async (tx) => {
        const prepared = await this.wire.prepare(tx, sql);
        try {
          return await this.wire.executeRows(prepared, tx, params);
        } finally {
          this.wire.drop(prepared.handle);
        }
      });
    try {
      return await execute();
    } catch (error) {
      // A statement this attachment prepared keeps its tables in use, and DROP TABLE (e.g. a
      // reload) fails on them: release them all (they prepare again when used) and try once more.
      if (this.tx || this.statements.size === 0 || !isObjectInUse(error)) throw withStatementText(classifyFirebirdError(error), sql);
      for (const statement of this.statements.values()) statement.release();
      return execute().catch((again: unknown) => {
        throw withStatementText(classifyFirebirdError(again), sql);
      });
    }
  }

  async begin(): Promise<void> {
    if (this.tx !== undefined) throw classifyFirebirdError(new Error('begin() inside an open transaction'));
    try {
      this.tx = await this.wire.startTransaction(this.readOnly ? READ_ONLY : READ_WRITE);
    } catch (error) {
      throw classifyFirebirdError(error);
    }
  }

  declareReadOnly(readOnly: boolean): void {
    this.readOnly = readOnly;
  }

  async commit(): Promise<void> {
    await this.end((tx) => this.wire.commit(tx));
  }

  async rollback(): Promise<void> {
    await this.end((tx) => this.wire.rollback(tx));
  }

  /**
   * EXECUTE BLOCK with as many INSERTs as fit in one statement's text, all in one transaction:
   * it was faster than one prepared insert executed per row (bench/firebird-driver-cpu/README.md).
   */
  async bulkInsert(table: string, columns: readonly string[], rows: Iterable<readonly SqlValue[]>): Promise<number> {
    const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (`;
    const own = this.tx === undefined;
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
      await this.advanceIdentities(table, columns);
    } catch (error) {
      if (own) await this.rollback().catch(() => {});
      throw classifyFirebirdError(error, this.target);
    }
    return count;
  }

  /**
   * Explicit ids loaded into an identity column leave its generator where it was, so the inserts
   * after them that take the default meet loaded ids: the identity restarts past the largest,
   * as MariaDB's AUTO_INCREMENT and SQLite's rowid move by themselves. RESTART WITH n makes n the
   * next value on Firebird 4 and later, n + 1 on Firebird 3: the generator's value after it says
   * which, and a Firebird 4 gets n + 1. Never backwards.
   */
  private async advanceIdentities(table: string, columns: readonly string[]): Promise<void> {
    const relation = /^".*"$/.test(table) ? table.slice(1, -1) : table.toUpperCase();
    const identities = await this.query(
      'SELECT TRIM(RDB$FIELD_NAME), TRIM(RDB$GENERATOR_NAME) FROM RDB$RELATION_FIELDS WHERE RDB$RELATION_NAME = ? AND RDB$IDENTITY_TYPE IS NOT NULL',
      [relation],
    );
    for (const [field, generator] of identities) {
      const column = columns.find((c) => (/^".*"$/.test(c) ? c.slice(1, -1) : c.toUpperCase()) === field);
      if (column === undefined) continue;
      const [[max]] = (await this.query(`SELECT MAX(${column}) FROM ${table}`)) as [[SqlValue]];
      const [[current]] = (await this.query(`SELECT GEN_ID("${String(generator)}", 0) FROM RDB$DATABASE`)) as [[SqlValue]];
      if (max === null || Number(current) >= Number(max)) continue;
      const restart = async (to: string): Promise<void> => void (await this.query(`ALTER TABLE ${table} ALTER COLUMN ${column} RESTART WITH ${to}`));
      await restart(String(max));
      const [[after]] = (await this.query(`SELECT GEN_ID("${String(generator)}", 0) FROM RDB$DATABASE`)) as [[SqlValue]];
      if (Number(after) < Number(max)) await restart(String(BigInt(String(max)) + 1n));
    }
  }

  pendingRequest(): string | undefined {
    return this.wire.pendingRequest();
  }

  async close(): Promise<void> {
    this.tx = undefined;
    // Detach and close at once: the server rolls back what the attachment left open.
    this.wire.close();
  }

  private async end(finish: (tx: number) => Promise<unknown>): Promise<void> {
    const tx = this.tx;
    this.tx = undefined;
    if (tx === undefined) return;
    try {
      await finish(tx);
    } catch (error) {
      throw classifyFirebirdError(error);
    }
  }
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
