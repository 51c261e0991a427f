import type { Connection as MariadbNativeConnection, Prepare, UpsertResult } from 'mariadb';
import { planMariadbSetting } from './settings.js';
import type { DbmsObservation } from '../../observe/observation.js';
import { observeMariadb } from './observe.js';
import type { Connection, ConnectionBudget, Driver, Row, ServerInfo, SettingPlan, SqlValue, Statement } from '../driver.js';
import type { ServerTarget } from '../../config/target.js';
import { describeTarget } from '../../config/target.js';
import { classifyMariadbError } from './errors.js';
import { StatementCache } from '../statement-cache.js';

/** Settings that decide MariaDB's speed and durability, stored with every result. */
const SETTINGS = [
  'innodb_flush_log_at_trx_commit',
  'sync_binlog',
  'log_bin',
  'innodb_buffer_pool_size',
  'innodb_log_file_size',
  'innodb_doublewrite',
  'innodb_flush_method',
  'max_connections',
  'transaction_isolation',
];

/** Rows per bulk statement: large enough to amortise round trips, small enough for max_allowed_packet. */
const BULK_BATCH_ROWS = 5_000;

export class MariadbDriver implements Driver {
  readonly dbms = 'mariadb';
  readonly blocking = false;
  readonly target: string;

  constructor(private readonly config: ServerTarget) {
    this.target = describeTarget(config);
  }

  async connect(): Promise<Connection> {
    try {
      // Loaded on first use: the connector takes a quarter of a second to load, which every
      // other command (and every run on another DBMS) would otherwise pay.
      const { default: mariadb } = await import('mariadb');
      const conn = await mariadb.createConnection({
        host: this.config.host,
        port: this.config.port,
        user: this.config.user,
        password: this.config.password,
        database: this.config.database,
        connectTimeout: 10_000,
        rowsAsArray: true,
        // Sums of money must stay exact: keep DECIMAL as strings and BIGINT as bigint.
        decimalAsNumber: false,
        bigIntAsNumber: false,
        insertIdAsNumber: true,
      });
      // The connector emits 'error' when the socket dies between queries; without a listener
      // that would end the process. The next call fails and is classified as connection_lost.
      conn.on('error', () => {});
      return new MariadbConnection(conn, this.config);
    } catch (error) {
      throw classifyMariadbError(error, this.config);
    }
  }

  async serverInfo(conn: Connection): Promise<ServerInfo> {
    const [[version, comment]] = (await conn.query('SELECT VERSION(), @@version_comment')) as [[string, string]];
    const rows = await conn.query(`SHOW GLOBAL VARIABLES WHERE Variable_name IN (${SETTINGS.map(() => '?').join(', ')})`, SETTINGS);
    const settings: Record<string, string> = {};
    for (const [name, value] of rows as [string, string][]) settings[name] = value;
    // InnoDB flushes its redo log at each commit only with innodb_flush_log_at_trx_commit=1;
    // 0 and 2 acknowledge commits that a crash can take back (MariaDB docs).
    const flush = settings['innodb_flush_log_at_trx_commit'];
    const durabilityRisks = flush === '1' ? [] : [`innodb_flush_log_at_trx_commit=${flush}`];
    return { dbms: 'mariadb', version: `${comment} ${version}`, settings, durabilityRisks };
  }

  async connectionBudget(conn: Connection): Promise<ConnectionBudget> {
    const [[max, inUse]] = (await conn.query(
      `SELECT @@max_connections,
              (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'THREADS_CONNECTED')`,
    )) as [[number | bigint, string]];
    return { max: Number(max), inUse: Number(inUse) };
  }

  async tableExists(conn: Connection, table: string): Promise<boolean> {
    const rows = await conn.query('SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?', [table]);
    return rows.length > 0;
  }

  planSetting(conn: Connection, name: string, value: string): Promise<SettingPlan> {
    return planMariadbSetting(conn, name, value);
  }

  observe(conn: Connection): DbmsObservation {
    return observeMariadb(conn);
  }

  async close(): Promise<void> {}
}

class MariadbStatement implements Statement {
  constructor(private readonly prepared: Prepare) {}

  async run(params: readonly SqlValue[] = []): Promise<number> {
    try {
      const result = (await this.prepared.execute(params)) as unknown;
      return Array.isArray(result) ? result.length : Number((result as UpsertResult).affectedRows);
    } catch (error) {
      throw classifyMariadbError(error);
    }
  }

  async all(params: readonly SqlValue[] = []): Promise<Row[]> {
    try {
      const result = (await this.prepared.execute(params)) as unknown;
      return Array.isArray(result) ? (result as Row[]) : [];
    } catch (error) {
      throw classifyMariadbError(error);
    }
  }
}

class MariadbConnection implements Connection {
  private readonly statements = new StatementCache<MariadbStatement>();

  constructor(
    private readonly conn: MariadbNativeConnection,
    private readonly target: ServerTarget,
  ) {}

  prepare(sql: string): Promise<Statement> {
    // An explicit server-side prepare, executed over the binary protocol: the cheapest path per
    // statement among the MariaDB drivers measured (bench/driver-cpu).
    return this.statements.get(sql, async () => {
      try {
        return new MariadbStatement(await this.conn.prepare(sql));
      } catch (error) {
        throw classifyMariadbError(error, this.target);
      }
    });
  }

  async query(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    try {
      const result = await this.conn.query(sql, params as unknown[]);
      return Array.isArray(result) ? (result as Row[]) : [];
    } catch (error) {
      throw classifyMariadbError(error, this.target);
    }
  }

  async begin(): Promise<void> {
    await this.simple('BEGIN');
  }

  async commit(): Promise<void> {
    await this.simple('COMMIT');
  }

  async rollback(): Promise<void> {
    await this.simple('ROLLBACK');
  }

  async bulkInsert(table: string, columns: readonly string[], rows: Iterable<readonly SqlValue[]>): Promise<number> {
    // batch() sends MariaDB's COM_STMT_BULK_EXECUTE: one prepared insert, many rows per packet.
    const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
    let count = 0;
    let batch: (readonly SqlValue[])[] = [];
    try {
      for (const row of rows) {
        batch.push(row);
        if (batch.length === BULK_BATCH_ROWS) {
          await this.conn.batch(sql, batch);
          count += batch.length;
          batch = [];
        }
      }
      if (batch.length > 0) await this.conn.batch(sql, batch);
      count += batch.length;
    } catch (error) {
      throw classifyMariadbError(error, this.target);
    }
    return count;
  }

  async close(): Promise<void> {
    await this.conn.end().catch(() => this.conn.destroy());
  }

  private async simple(sql: string): Promise<void> {
    try {
      await this.conn.query(sql);
    } catch (error) {
      throw classifyMariadbError(error);
    }
  }
}
