import Database from 'better-sqlite3';
import path from 'node:path';
import { planSqliteSetting } from './settings.js';
import type { DbmsObservation } from '../observation.js';
import { observeSqlite } from './observe.js';
import type { Connection, Driver, Row, ServerInfo, SettingPlan, SqlValue, Statement } from '../driver.js';
import { describeTarget, type SqliteTarget } from '../../config/target.js';
import { classifySqliteError } from './errors.js';
import { withStatementText } from '../errors.js';
import { StatementCache } from '../statement-cache.js';

const BUSY_TIMEOUT_MS = 5000;

/**
 * Two connections that turn a new file to WAL at the same moment (the jobs of `-j 2` on a file
 * nothing opened before): SQLite answers one of them SQLITE_BUSY at once, without waiting under its
 * busy timeout (1 time in 300 with two threads here). The switch is tried again for as long as that
 * timeout would have waited; the other connection's switch takes microseconds.
 */
async function switchToWal(db: Database.Database): Promise<void> {
  const deadline = performance.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      // SQLITE_BUSY, or one of its extended codes (SQLITE_BUSY_RECOVERY: another connection is recovering the WAL).
      if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY') || performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/**
 * SQLite through better-sqlite3 12: synchronous calls, so the driver is `blocking` and every
 * Promise it returns is already settled. Each connection opens its own handle on the file in
 * WAL mode, so readers never wait for the writer.
 */
export class SqliteDriver implements Driver {
  readonly dbms = 'sqlite';
  readonly blocking = true;
  readonly pipelines = false;
  readonly target: string;

  constructor(private readonly config: SqliteTarget) {
    this.target = describeTarget(config);
  }

  async connect(): Promise<Connection> {
    let db: Database.Database | undefined;
    try {
      db = new Database(this.config.file);
      await switchToWal(db);
      // Explicit: left to SQLite, a connection that made the file WAL keeps FULL and one that opens
      // a WAL file gets NORMAL (better-sqlite3's build), so a new file's first run would differ from later ones.
      db.pragma(`synchronous = ${(this.config.synchronous ?? 'full').toUpperCase()}`);
      // Waiting is only useful between threads (jobs): inside one thread the engine never
      // interleaves two transactions, since every call here completes before it returns.
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      return new SqliteConnection(db);
    } catch (error) {
      db?.close();
      throw classifySqliteError(error);
    }
  }

  async serverInfo(conn: Connection): Promise<ServerInfo> {
    const value = async (sql: string): Promise<string> => String((await conn.query(sql))[0]?.[0] ?? '');
    const settings: Record<string, string> = {};
    for (const pragma of ['journal_mode', 'synchronous', 'page_size', 'cache_size', 'busy_timeout']) {
      settings[pragma] = await value(`PRAGMA ${pragma}`);
    }
    // PRAGMA synchronous answers a number; keep its name beside it so the result reads plainly.
    const synchronous = Number(settings['synchronous']);
    const mode = ['OFF', 'NORMAL', 'FULL', 'EXTRA'][synchronous];
    settings['synchronous'] = `${synchronous} (${mode ?? '?'})`;
    // In WAL mode NORMAL syncs only at checkpoints: a power loss can take back the last commits
    // (SQLite docs, PRAGMA synchronous). A killed process loses nothing at NORMAL or above.
    const durabilityRisks =
      synchronous === 0 ? ['synchronous=OFF'] : synchronous === 1 && settings['journal_mode'] === 'wal' ? ['synchronous=NORMAL in WAL mode (power loss)'] : [];
    return {
      dbms: 'sqlite',
      version: `SQLite ${await value('SELECT sqlite_version()')}`,
      settings,
      durabilityRisks,
      embedded: 'SQLite',
      // The URL's ?synchronous= decides durability per connection: reports name it beside the version.
      ...(mode === undefined ? {} : { connectionDurability: `synchronous=${mode}` }),
    };
  }

  async connectionBudget(): Promise<undefined> {
    return undefined;
  }

  async dataFolder(): Promise<string | undefined> {
    return path.dirname(path.resolve(this.config.file));
  }

  async tableExists(conn: Connection, table: string): Promise<boolean> {
    return (await conn.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [table])).length > 0;
  }

  planSetting(conn: Connection, name: string, value: string): Promise<SettingPlan> {
    return planSqliteSetting(conn, name, value);
  }

  observe(conn: Connection): DbmsObservation {
    return observeSqlite(conn);
  }

  async close(): Promise<void> {}
}

class SqliteStatement implements Statement {
  constructor(private readonly statement: Database.Statement) {
    if (statement.reader) statement.raw(true);
  }

  async run(params: readonly SqlValue[] = []): Promise<number> {
    try {
      return this.statement.reader ? this.statement.all(...bind(params)).length : this.statement.run(...bind(params)).changes;
    } catch (error) {
      throw withStatementText(classifySqliteError(error), this.statement.source);
    }
  }

  async all(params: readonly SqlValue[] = []): Promise<Row[]> {
    try {
      if (!this.statement.reader) {
        this.statement.run(...bind(params));
        return [];
      }
      return this.statement.all(...bind(params)) as Row[];
    } catch (error) {
      throw withStatementText(classifySqliteError(error), this.statement.source);
    }
  }
}

class SqliteConnection implements Connection {
  private readonly statements = new StatementCache<SqliteStatement>();
  private readonly beginStatement: Database.Statement;
  private readonly beginWritingStatement: Database.Statement;
  /** Set by declareReadOnly(): the transactions started from now on only read. */
  private readOnly = false;
  private readonly commitStatement: Database.Statement;
  private readonly rollbackStatement: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.beginStatement = db.prepare('BEGIN');
    this.beginWritingStatement = db.prepare('BEGIN IMMEDIATE');
    this.commitStatement = db.prepare('COMMIT');
    this.rollbackStatement = db.prepare('ROLLBACK');
  }

  prepare(sql: string): Promise<Statement> {
    return this.statements.get(sql, async () => {
      try {
        return new SqliteStatement(this.db.prepare(sql));
      } catch (error) {
        throw withStatementText(classifySqliteError(error), sql);
      }
    });
  }

  async query(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    return (await this.prepare(sql)).all(params);
  }

  /**
   * A transaction that may write takes the write lock at BEGIN (IMMEDIATE). Deferred, one that
   * reads first and writes after another job's connection committed fails at its first write
   * with SQLITE_BUSY_SNAPSHOT, which no busy_timeout waits out (its snapshot is stale): the chain
   * unit (two reads, then an update and an insert) failed 93% of its attempts at -c 4 -j 2. Taken
   * at BEGIN, the lock is waited for under busy_timeout instead, as SQLite's documentation of
   * BEGIN advises for writing transactions. Transactions declared read-only stay deferred, so
   * readers never wait for the writer.
   */
  async begin(): Promise<void> {
    this.execute(this.readOnly ? this.beginStatement : this.beginWritingStatement);
  }

  declareReadOnly(readOnly: boolean): void {
    this.readOnly = readOnly;
  }

  async commit(): Promise<void> {
    this.execute(this.commitStatement);
  }

  async rollback(): Promise<void> {
    // After some errors SQLite has already rolled back; a second ROLLBACK would only fail.
    if (this.db.inTransaction) this.execute(this.rollbackStatement);
  }

  async bulkInsert(table: string, columns: readonly string[], rows: Iterable<readonly SqlValue[]>): Promise<number> {
    // SQLite's fastest path is one transaction around one prepared insert.
    const insert = this.db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    let count = 0;
    try {
      this.db.transaction(() => {
        for (const row of rows) {
          insert.run(...bind(row));
          count++;
        }
      })();
    } catch (error) {
      throw classifySqliteError(error);
    }
    return count;
  }

  async close(): Promise<void> {
    this.db.close();
  }

  private execute(statement: Database.Statement): void {
    try {
      statement.run();
    } catch (error) {
      throw classifySqliteError(error);
    }
  }
}

/** better-sqlite3 binds numbers, bigints, strings, buffers and null; other values are converted. */
function bind(params: readonly SqlValue[]): unknown[] {
  let converted: unknown[] | undefined;
  for (let i = 0; i < params.length; i++) {
    const value = params[i];
    if (typeof value === 'boolean' || value instanceof Date) {
      converted ??= params.slice();
      converted[i] = typeof value === 'boolean' ? Number(value) : value.toISOString();
    }
  }
  return converted ?? (params as unknown[]);
}
