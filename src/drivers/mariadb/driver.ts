import { tightest } from '../budget.js';
import { planMariadbSetting } from './settings.js';
import type { DbmsObservation } from '../observation.js';
import { observeMariadb } from './observe.js';
import { oneValue } from '../driver.js';
import type { Connection, ConnectionBudget, Driver, Row, ServerInfo, SettingPlan, SqlValue, Statement } from '../driver.js';
import type { ServerTarget } from '../../config/target.js';
import { describeTarget } from '../../config/target.js';
import { classifyMariadbError } from './errors.js';
import { StatementCache } from '../statement-cache.js';
import { MariadbWire, type MariadbPreparedStatement } from './wire/connection.js';
import { mariadbPendingStore } from './pending-store.js';
import { galeraLag } from './replica-lag.js';
import { readFileSync } from 'node:fs';
import { TlsContext, TlsError } from '../transport/tls.js';
import { transportKind } from '../transport/connect.js';

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

/**
 * Bytes of SQL per multi-row INSERT of a bulk load: large enough to amortise round trips and the
 * server's parsing, far below max_allowed_packet (16 MiB by default).
 */
const BULK_STATEMENT_BYTES = 2 << 20;

export class MariadbDriver implements Driver {
  readonly dbms = 'mariadb';
  readonly blocking = false;
  readonly pipelines = false;
  readonly target: string;
  /** Built once: its secure context (CA file parsed) serves every connection of this driver. */
  private readonly tls: TlsContext | undefined;
  private serverPublicKey: string | undefined;

  constructor(private readonly config: ServerTarget) {
    this.target = describeTarget(config);
    this.tls = config.tls && new TlsContext(config.tls);
  }

  /** The server's RSA key for caching_sha2_password without TLS (?server-public-key-path), read once. */
  private publicKey(): string | undefined {
    const file = this.config.tls?.serverPublicKey;
    if (file === undefined || this.serverPublicKey !== undefined) return this.serverPublicKey;
    try {
      return (this.serverPublicKey = readFileSync(file, 'utf8'));
    } catch (error) {
      throw new TlsError(
        `cannot read the server public key file "${file}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        'TLS_FILE',
        'check ?server-public-key-path',
      );
    }
  }

  async connect(): Promise<Connection> {
    try {
      const wire = await MariadbWire.connect({
        host: this.config.host,
        port: this.config.port,
        user: this.config.user,
        password: this.config.password,
        database: this.config.database,
        connectTimeoutMs: this.config.connectTimeoutMs ?? 10_000,
        tls: this.tls,
        serverPublicKey: this.publicKey(),
        classify: (error) => classifyMariadbError(error, this.config),
      });
      return new MariadbConnection(wire);
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
    // The server's own word on encryption: an empty Ssl_cipher is a plaintext session.
    const ssl = new Map((await conn.query("SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_version', 'Ssl_cipher')")) as [string, string][]);
    const cipher = ssl.get('Ssl_cipher') ?? '';
    // A connection of another kind (a wrapper) tells nothing: the process's transport, or tls once encrypted.
    const transport = conn instanceof MariadbConnection ? conn.wire.transportKind : cipher !== '' ? 'tls' : transportKind();
    return {
      dbms: 'mariadb',
      version: `${comment} ${version}`,
      settings,
      durabilityRisks,
      ...(cipher !== '' ? { tls: { protocol: ssl.get('Ssl_version') ?? '', cipher } } : {}),
      transport,
    };
  }

  async connectionBudget(conn: Connection): Promise<ConnectionBudget> {
    const [[max, inUse, globalUserMax, userInUse, account]] = (await conn.query(
      `SELECT @@max_connections,
              (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'THREADS_CONNECTED'),
              @@max_user_connections,
              (SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = SUBSTRING_INDEX(CURRENT_USER(), '@', 1)),
              CURRENT_USER()`,
    )) as [[number | bigint, string, number | bigint, number | bigint, string]];
    const budgets: ConnectionBudget[] = [{ max: Number(max), inUse: Number(inUse) }];
    // The account's own MAX_USER_CONNECTIONS (SHOW GRANTS is readable by every user; mysql.user is not), else the server's (0: none).
    const grants = (await conn.query('SHOW GRANTS')) as [string][];
    const own = Number(grants.map(([line]) => /\bMAX_USER_CONNECTIONS (\d+)/i.exec(line)?.[1]).find((n) => n !== undefined) ?? 0);
    const [user, host] = [account.slice(0, account.lastIndexOf('@')), account.slice(account.lastIndexOf('@') + 1)];
    if (own > 0) {
      budgets.push({
        max: own,
        inUse: Number(userInUse),
        limit: `MAX_USER_CONNECTIONS of user '${user}'@'${host}'`,
        raise: `ALTER USER '${user}'@'${host}' WITH MAX_USER_CONNECTIONS N`,
      });
    } else if (Number(globalUserMax) > 0) {
      budgets.push({ max: Number(globalUserMax), inUse: Number(userInUse), limit: 'max_user_connections', raise: 'SET GLOBAL max_user_connections = N' });
    }
    return tightest(budgets);
  }

  dataFolder(conn: Connection): Promise<string | undefined> {
    return oneValue(conn, 'SELECT @@datadir');
  }

  async serverIdentity(conn: Connection): Promise<{ ids: string[]; database: string }> {
    const [[host, port, database]] = (await conn.query('SELECT @@hostname, @@port, DATABASE()')) as [[string, unknown, string | null]];
    // @@server_uuid is MySQL's; MariaDB has none, and a capture may name either.
    const uuid = await oneValue(conn, 'SELECT @@server_uuid').catch(() => undefined);
    return { ids: [`${host}:${String(port)}`, ...(uuid === undefined ? [] : [uuid])], database: database ?? '' };
  }

  async tableExists(conn: Connection, table: string): Promise<boolean> {
    const rows = await conn.query('SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?', [table]);
    return rows.length > 0;
  }

  readonly pendingStore = mariadbPendingStore;
  readonly durableValues = { innodb_flush_log_at_trx_commit: ['1'], innodb_doublewrite: ['on', '1'], sync_binlog: ['1'] };

  planSetting(conn: Connection, name: string, value: string): Promise<SettingPlan> {
    return planMariadbSetting(conn, name, value);
  }

  /** Galera clusters only: asynchronous MariaDB replication has no wsrep status (the sample says so). */
  readonly replicaLag = galeraLag;

  observe(conn: Connection): DbmsObservation {
    return observeMariadb(conn);
  }

  async close(): Promise<void> {}
}

/** The wire client rejects with errors already classified (MariadbWireOptions.classify). */
class MariadbStatement implements Statement {
  constructor(
    private readonly wire: MariadbWire,
    private readonly prepared: MariadbPreparedStatement,
  ) {}

  run(params: readonly SqlValue[] = NO_PARAMS): Promise<number> {
    return this.wire.executeCount(this.prepared, params);
  }

  all(params: readonly SqlValue[] = NO_PARAMS): Promise<Row[]> {
    return this.wire.executeRows(this.prepared, params);
  }
}

const NO_PARAMS: readonly SqlValue[] = [];

class MariadbConnection implements Connection {
  private readonly statements = new StatementCache<MariadbStatement>();

  constructor(readonly wire: MariadbWire) {}

  prepare(sql: string): Promise<Statement> {
    // A server-side prepare, executed over the binary protocol.
    return this.statements.get(sql, async () => new MariadbStatement(this.wire, await this.wire.prepare(sql)));
  }

  /** The text protocol, with parameters written into the text as literals (as the connector did). */
  query(sql: string, params: readonly SqlValue[] = NO_PARAMS): Promise<Row[]> {
    return this.wire.query(sql, params);
  }

  begin(): Promise<void> {
    return this.wire.command('BEGIN');
  }

  commit(): Promise<void> {
    return this.wire.command('COMMIT');
  }

  rollback(): Promise<void> {
    return this.wire.command('ROLLBACK');
  }

  /** Multi-row INSERTs of about BULK_STATEMENT_BYTES each, with the values as literals. */
  async bulkInsert(table: string, columns: readonly string[], rows: Iterable<readonly SqlValue[]>): Promise<number> {
    const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
    let count = 0;
    let sql = head;
    let pending = 0;
    try {
      for (const row of rows) {
        let values = '(';
        for (let i = 0; i < row.length; i++) {
          const value = row[i];
          values += (i === 0 ? '' : ',') + (typeof value === 'number' && Number.isFinite(value) ? '' + value : this.wire.literal(value));
        }
        sql += (pending === 0 ? '' : ',') + values + ')';
        pending++;
        if (sql.length >= BULK_STATEMENT_BYTES) {
          await this.wire.query(sql);
          count += pending;
          sql = head;
          pending = 0;
        }
      }
      if (pending > 0) await this.wire.query(sql);
    } catch (error) {
      throw classifyMariadbError(error);
    }
    return count + pending;
  }

  pendingRequest(): string | undefined {
    return this.wire.pendingRequest();
  }

  async close(): Promise<void> {
    await this.wire.close();
  }
}
