import type { Connection, DeclaredType, Row, SqlValue, Statement } from '../drivers/driver.js';
import { DbError } from '../drivers/errors.js';
import type { JournalWriter } from './journal.js';

/** The error classes that are the server's answer to COMMIT, not a lost answer: the transaction rolled back. */
const REFUSALS: ReadonlySet<DbError['errorClass']> = new Set(['retryable', 'bad_request', 'capacity']);

/**
 * Wraps a terminal's connection for the durability check: every commit first writes a unique id
 * into headroom_journal in the same transaction, and the id goes to the client's journal with the
 * commit's outcome once it is known (journal.ts: acknowledged, refused or unknown). Read-only transactions (those that never call commit(), or declared
 * read-only) are not journaled.
 */
export class JournalingConnection implements Connection {
  private insert: Statement | undefined;
  /** The transaction declared itself read-only: nothing to journal, and the driver may refuse the insert. */
  private readOnly = false;

  /** The inner connection's ways of sending that only some drivers have, passed on where it has them. */
  readonly queryUnnamed?: (sql: string, withBegin: boolean) => Promise<Row[]>;
  readonly commitNamed?: () => Promise<void>;
  readonly prepareAtThreshold?: (sql: string, threshold: number, types?: readonly DeclaredType[]) => Statement;

  constructor(
    private readonly inner: Connection,
    private readonly journal: JournalWriter,
    private readonly nextId: () => string,
  ) {
    if (inner.queryUnnamed) this.queryUnnamed = inner.queryUnnamed.bind(inner);
    if (inner.prepareAtThreshold) this.prepareAtThreshold = inner.prepareAtThreshold.bind(inner);
    const commitNamed = inner.commitNamed?.bind(inner);
    if (commitNamed) this.commitNamed = () => this.journaled(commitNamed);
  }

  commit(): Promise<void> {
    return this.journaled(() => this.inner.commit());
  }

  /** `commit`, with the journal's id written in the same transaction and recorded once it is acknowledged. */
  private async journaled(commit: () => Promise<void>): Promise<void> {
    if (this.readOnly) return commit();
    const id = this.nextId();
    this.insert ??= await this.inner.prepare('INSERT INTO headroom_journal (id) VALUES (?)');
    await this.insert.run([id]);
    try {
      await commit();
    } catch (error) {
      // Only the server's own refusal (a conflict, a bad request) says the commit did not happen.
      // Anything else (the connection lost on the way, the client closing it at the run's end, an
      // error headroom cannot class) leaves the outcome unknown: never acknowledged, never failed.
      if (error instanceof DbError && REFUSALS.has(error.errorClass)) this.journal.refused(id);
      else this.journal.unknown(id);
      throw error;
    }
    this.journal.acknowledged(id);
  }

  prepare(sql: string): Promise<Statement> {
    return this.inner.prepare(sql);
  }

  query(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.inner.query(sql, params);
  }

  begin(): Promise<void> {
    return this.inner.begin();
  }

  rollback(): Promise<void> {
    return this.inner.rollback();
  }

  bulkInsert(table: string, columns: readonly string[], rows: Iterable<readonly SqlValue[]>): Promise<number> {
    return this.inner.bulkInsert(table, columns, rows);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  pendingRequest(): string | undefined {
    return this.inner.pendingRequest?.();
  }

  declareReadOnly(readOnly: boolean): void {
    this.readOnly = readOnly;
    this.inner.declareReadOnly?.(readOnly);
  }
}
