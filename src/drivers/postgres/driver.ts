import { tightest } from '../budget.js';
import type { DbmsObservation } from '../observation.js';
import { planPostgresSetting } from './settings.js';
import { observePostgres } from './observe.js';
import { oneValue } from '../driver.js';
import type { Connection, ConnectionBudget, DeclaredType, Driver, LiteralStatement, Row, ServerInfo, SettingPlan, SqlValue, Statement } from '../driver.js';
import { literalText, type LiteralValue } from '../literals.js';
import { literalQuery, type PgLiteralQuery } from './wire/literal-query.js';
import type { ServerTarget } from '../../config/target.js';
import { describeTarget } from '../../config/target.js';
import { numberPlaceholders } from '../placeholders.js';
import { classifyPostgresError } from './errors.js';
import { DbError } from '../errors.js';
import { PgServerError } from './wire/pg-error.js';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { copyChunks } from './copy.js';
import { WireConnection, encodeQuery, type PgPreparedStatement } from './wire/connection.js';
import type { PgThresholdStatement } from './wire/threshold-statement.js';
import { StatementCache } from '../statement-cache.js';
import { unframeableString } from '../unframeable.js';
import { postgresPendingStore } from './pending-store.js';
import { connectSuitable } from './hosts.js';
import { TlsContext } from '../transport/tls.js';
import { transportKind } from '../transport/connect.js';
import { POSTGRES_TLS_DEFAULT } from './tls-options.js';
import { postgresLag } from './replica-lag.js';
import { postgresCleanupHold } from './autovacuum.js';

const BEGIN = encodeQuery('BEGIN');
const COMMIT = encodeQuery('COMMIT');
const ROLLBACK = encodeQuery('ROLLBACK');

/** Settings that decide PostgreSQL's speed and durability, stored with every result. */
const SETTINGS = [
  'fsync',
  'synchronous_commit',
  'full_page_writes',
  'wal_level',
  'shared_buffers',
  'effective_cache_size',
  'work_mem',
  'max_connections',
  'max_wal_size',
  'checkpoint_timeout',
  'default_transaction_isolation',
];

/**
 * The address of a host given by name whose server refused the login, which libpq names: the
 * first that the name looks up to, as the transport connects to it (only on this error path).
 */
async function refusingAddress(error: unknown, host: string): Promise<string | undefined> {
  if (!(error instanceof PgServerError) || host.startsWith('/') || isIP(host) !== 0) return undefined;
  return lookup(host).then(
    (found) => found.address,
    () => undefined,
  );
}

export class PostgresDriver implements Driver {
  readonly dbms = 'postgres';
  readonly blocking = false;
  readonly pipelines = true;
  readonly target: string;
  /** Built once: its secure context (CA file parsed) serves every connection of this driver. */
  private readonly tls: TlsContext;

  constructor(private readonly config: ServerTarget) {
    this.target = describeTarget(config);
    this.tls = new TlsContext(config.tls ?? POSTGRES_TLS_DEFAULT);
  }

  async connect(): Promise<Connection> {
    // The startup message's fields are NUL-terminated: one that holds a NUL is refused before a socket is opened.
    for (const field of [this.config.user, this.config.database]) if (field.includes('\0')) throw unframeableString('PostgreSQL', field);
    const wire = await connectSuitable(this.config, async (host) => {
      try {
        return await WireConnection.connect({
          host: host.host,
          port: host.port,
          user: this.config.user,
          password: host.password,
          database: this.config.database,
          applicationName: this.config.applicationName ?? 'headroom',
          ...(this.config.options === undefined ? {} : { options: this.config.options }),
          connectTimeoutMs: this.config.connectTimeoutMs ?? 10_000,
          tls: this.tls,
          classify: (error) => classifyPostgresError(error, this.config),
        });
      } catch (error) {
        // Classified here, with the host tried: the wire classified a server's refusal already, without it.
        const cause = error instanceof DbError ? (error.cause ?? error) : error;
        throw classifyPostgresError(cause, this.config, { ...host, address: await refusingAddress(cause, host.host) });
      }
    });
    return new PostgresConnection(wire, this.config);
  }

  async serverInfo(conn: Connection): Promise<ServerInfo> {
    const [[version]] = (await conn.query('SELECT version()')) as [[string]];
    const shown = await conn.query(`SELECT ${SETTINGS.map((s) => `current_setting('${s}')`).join(', ')}`);
    const settings: Record<string, string> = {};
    SETTINGS.forEach((name, i) => (settings[name] = String(shown[0]?.[i] ?? '')));
    // A commit is durable once its WAL is flushed: fsync=off skips the flush, synchronous_commit=off
    // acknowledges before it (PostgreSQL docs, "Asynchronous Commit").
    const durabilityRisks = [
      ...(settings['fsync'] === 'off' ? ['fsync=off'] : []),
      ...(settings['synchronous_commit'] === 'off' ? ['synchronous_commit=off'] : []),
    ];
    // The server's own word on encryption, not the client's belief.
    const [ssl] = (await conn.query('SELECT version, cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid() AND ssl')) as [string, string][];
    // A connection of another kind (a wrapper) tells nothing: the process's transport, or tls once encrypted.
    const transport = conn instanceof PostgresConnection ? conn.wire.transportKind : ssl ? 'tls' : transportKind();
    return { dbms: 'postgres', version, settings, durabilityRisks, ...(ssl ? { tls: { protocol: ssl[0], cipher: ssl[1] } } : {}), transport };
  }

  async connectionBudget(conn: Connection): Promise<ConnectionBudget> {
    // Ordinary roles cannot use the superuser_reserved_connections slots, and are held to their
    // role's and database's CONNECTION LIMIT (-1: none), which superusers are not.
    const [[max, inUse, roleLimit, roleInUse, databaseLimit, databaseInUse, role, database]] = (await conn.query(
      `SELECT current_setting('max_connections')::int - CASE WHEN r.rolsuper THEN 0 ELSE current_setting('superuser_reserved_connections')::int END,
              (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend'),
              CASE WHEN r.rolsuper THEN -1 ELSE r.rolconnlimit END,
              (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend' AND usesysid = r.oid),
              CASE WHEN r.rolsuper THEN -1 ELSE d.datconnlimit END,
              (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend' AND datid = d.oid),
              quote_ident(r.rolname), quote_ident(d.datname)
         FROM pg_roles r, pg_database d
        WHERE r.rolname = session_user AND d.datname = current_database()`,
    )) as [[number, number, number, number, number, number, string, string]];
    const budgets: ConnectionBudget[] = [{ max, inUse }];
    if (roleLimit >= 0) {
      budgets.push({ max: roleLimit, inUse: roleInUse, limit: `CONNECTION LIMIT of role ${role}`, raise: `ALTER ROLE ${role} CONNECTION LIMIT N` });
    }
    if (databaseLimit >= 0) {
      budgets.push({
        max: databaseLimit,
        inUse: databaseInUse,
        limit: `CONNECTION LIMIT of database ${database}`,
        raise: `ALTER DATABASE ${database} CONNECTION LIMIT N`,
      });
    }
    return tightest(budgets);
  }

  dataFolder(conn: Connection): Promise<string | undefined> {
    return oneValue(conn, 'SHOW data_directory');
  }

  async serverIdentity(conn: Connection): Promise<{ ids: string[]; database: string }> {
    const [[database]] = (await conn.query('SELECT current_database()')) as [[string]];
    // pg_control_system() may be refused to a role without pg_monitor: then no identity.
    const id = await oneValue(conn, 'SELECT system_identifier::text FROM pg_control_system()').catch(() => undefined);
    return { ids: id === undefined ? [] : [id], database };
  }

  async copyDatabase(conn: Connection, template: string, name: string): Promise<void> {
    await conn.query(`CREATE DATABASE ${pgIdentifier(name)} TEMPLATE ${pgIdentifier(template)}`);
  }

  async dropDatabase(conn: Connection, name: string): Promise<void> {
    await conn.query(`DROP DATABASE IF EXISTS ${pgIdentifier(name)} WITH (FORCE)`);
  }

  async tableExists(conn: Connection, table: string): Promise<boolean> {
    const [[exists]] = (await conn.query('SELECT to_regclass(?) IS NOT NULL', [table])) as [[boolean]];
    return exists;
  }

  readonly pendingStore = postgresPendingStore;
  readonly durableValues = {
    fsync: ['on', 'true', 'yes', '1'],
    full_page_writes: ['on', 'true', 'yes', '1'],
    synchronous_commit: ['on', 'remote_apply', 'remote_write', 'local'],
  };
  readonly cleanupHold = postgresCleanupHold;

  planSetting(conn: Connection, name: string, value: string): Promise<SettingPlan> {
    return planPostgresSetting(conn, name, value);
  }

  readonly replicaLag = postgresLag;

  observe(conn: Connection): DbmsObservation {
    return observePostgres(conn);
  }

  async close(): Promise<void> {}
}

/** The wire client rejects with errors already classified (WireOptions.classify), so no wrapper is needed. */
class PostgresStatement implements Statement {
  constructor(
    private readonly wire: WireConnection,
    private readonly statement: PgPreparedStatement,
  ) {}

  run(params: readonly SqlValue[] = NO_PARAMS): Promise<number> {
    return this.wire.executeCount(this.statement, params);
  }

  all(params: readonly SqlValue[] = NO_PARAMS): Promise<Row[]> {
    return this.wire.executeRows(this.statement, params);
  }
}

const NO_PARAMS: readonly SqlValue[] = [];

/** pgJDBC's PreparedStatement under its prepareThreshold (wire/threshold-statement.ts); errors come classified as PostgresStatement's do. */
class PostgresThresholdStatement implements Statement {
  constructor(
    private readonly wire: WireConnection,
    private readonly statement: PgThresholdStatement,
  ) {}

  run(params: readonly SqlValue[] = NO_PARAMS): Promise<number> {
    return this.wire.executeAtThreshold(this.statement, params, false) as Promise<number>;
  }

  all(params: readonly SqlValue[] = NO_PARAMS): Promise<Row[]> {
    return this.wire.executeAtThreshold(this.statement, params, true) as Promise<Row[]>;
  }
}

/**
 * Each execution is one Query message written straight from the encoded pieces and the values
 * (wire/literal-query.ts): no text, no per-call buffer, and without `all` the rows are only counted.
 */
class PostgresLiteralStatement implements LiteralStatement {
  private readonly query: PgLiteralQuery;

  constructor(
    private readonly connection: PostgresConnection,
    private readonly pieces: readonly string[],
  ) {
    this.query = literalQuery(pieces);
  }

  run(values: readonly LiteralValue[]): Promise<number> {
    const sent = this.connection.wire.executeLiteral(this.query, values, false) as Promise<number> | undefined;
    // A NUL byte in the text: query() refuses it in its own words.
    return sent ?? this.connection.query(literalText(this.pieces, values)).then((rows) => rows.length);
  }

  all(values: readonly LiteralValue[]): Promise<Row[]> {
    return (
      (this.connection.wire.executeLiteral(this.query, values, true) as Promise<Row[]> | undefined) ?? this.connection.query(literalText(this.pieces, values))
    );
  }
}

class PostgresConnection implements Connection {
  private readonly statements = new StatementCache<PostgresStatement>();

  constructor(
    readonly wire: WireConnection,
    private readonly target: ServerTarget,
  ) {}

  prepare(sql: string): Promise<Statement> {
    return this.statements.get(sql, async () => {
      try {
        const prepared = await this.wire.prepare(numberPlaceholders(sql));
        // Its errors name the text as the workload wrote it, with its ? placeholders.
        prepared.sql = sql;
        return new PostgresStatement(this.wire, prepared);
      } catch (error) {
        throw Object.assign(classifyPostgresError(error, this.target), { sql });
      }
    });
  }

  async query(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    try {
      const result = params.length > 0 ? await this.wire.extendedQuery(numberPlaceholders(sql), params) : await this.wire.simpleQuery(sql);
      return result.rows;
    } catch (error) {
      throw Object.assign(classifyPostgresError(error, this.target), { sql });
    }
  }

  literalStatement(pieces: readonly string[]): LiteralStatement {
    return new PostgresLiteralStatement(this, pieces);
  }

  async queryUnnamed(sql: string, withBegin: boolean): Promise<Row[]> {
    try {
      return await this.wire.unnamedQuery(sql, withBegin);
    } catch (error) {
      throw classifyPostgresError(error, this.target);
    }
  }

  prepareAtThreshold(sql: string, threshold: number, types?: readonly DeclaredType[]): Statement {
    return new PostgresThresholdStatement(this.wire, this.wire.thresholdStatement(numberPlaceholders(sql), threshold, types));
  }

  /** COMMIT kept as a named statement, made at the first commitNamed(). */
  private namedCommit: (() => Promise<void>) | undefined;

  commitNamed(): Promise<void> {
    return (this.namedCommit ??= this.wire.namedCommand('COMMIT'))();
  }

  async queryResults(sql: string): Promise<{ columns: string[] | undefined; rows: Row[] }[]> {
    try {
      return await this.wire.queryResults(sql);
    } catch (error) {
      const failed = classifyPostgresError(error, this.target);
      failed.statement = (error as { statement?: number }).statement;
      throw failed;
    }
  }

  begin(): Promise<void> {
    return this.wire.command(BEGIN);
  }

  commit(): Promise<void> {
    return this.wire.command(COMMIT);
  }

  rollback(): Promise<void> {
    return this.wire.command(ROLLBACK);
  }

  async bulkInsert(table: string, columns: readonly string[], rows: Iterable<readonly SqlValue[]>): Promise<number> {
    try {
      const count = await this.wire.copyIn(`COPY ${table} (${columns.join(', ')}) FROM STDIN`, copyChunks(rows));
      await this.advanceSequences(table, columns);
      return count;
    } catch (error) {
      throw classifyPostgresError(error, this.target);
    }
  }

  /**
   * Rows loaded with their own ids into an identity (or serial) column leave its sequence where
   * it was, so every insert after them that takes the default would meet a loaded id (duplicate
   * key): the sequence moves past the largest id, as MariaDB's AUTO_INCREMENT and SQLite's rowid
   * do by themselves. Never backwards, so that loaders of one table side by side cannot undo
   * each other's move.
   */
  private async advanceSequences(table: string, columns: readonly string[]): Promise<void> {
    // The column as pg_get_serial_sequence reads it: literally, so unquoted names folded as SQL folds them.
    const names = columns.map((c) => (/^".*"$/.test(c) ? c.slice(1, -1).replace(/""/g, '"') : c.toLowerCase()));
    const lookups = names.map((_, i) => `pg_get_serial_sequence($1, $${i + 2})`).join(', ');
    const [sequences] = (await this.wire.extendedQuery(`SELECT ${lookups}`, [table, ...names])).rows;
    for (const [i, sequence] of (sequences ?? []).entries()) {
      if (sequence === null) continue;
      // pg_get_serial_sequence gives the sequence's name quoted as needed: safe in the text.
      await this.wire.simpleQuery(
        `SELECT setval('${String(sequence).replace(/'/g, "''")}', GREATEST(m, (SELECT last_value FROM ${String(sequence)}))) FROM (SELECT max(${columns[i]}) AS m FROM ${table}) AS loaded WHERE m IS NOT NULL`,
      );
    }
  }

  pendingRequest(): string | undefined {
    return this.wire.pendingRequest();
  }

  serverSessionId(): number | undefined {
    // BackendKeyData: every startup that succeeds has sent it.
    return this.wire.processId || undefined;
  }

  async close(): Promise<void> {
    await this.wire.close().catch(() => {});
  }
}

/** A name as a quoted identifier. */
function pgIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
