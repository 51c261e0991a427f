import type { Socket as NetSocket } from 'node:net';
import Firebird, { type Database, type Options, type Statement as NativeStatement, type Transaction } from 'node-firebird';
import wire from 'node-firebird/lib/wire/const.js';
import WireConnection from 'node-firebird/lib/wire/connection.js';
import { parseRecordCounts } from 'node-firebird/lib/wire/xsqlvar.js';
import type { DbmsObservation } from '../../observe/observation.js';
import { observeFirebird } from './observe.js';
import type { Connection, ConnectionBudget, Driver, Row, ServerInfo, SettingPlan, SqlValue, Statement } from '../driver.js';
import { UserError } from '../../errors.js';
import type { ServerTarget } from '../../config/target.js';
import { describeTarget } from '../../config/target.js';
import { classifyFirebirdError } from './errors.js';

/**
 * Read committed, record version (Firebird's usual read committed: readers never wait for
 * writers), waiting on row locks so a conflict ends as isc_deadlock/isc_update_conflict once the
 * other writer finishes. node-firebird calls this pair ISOLATION_READ_UNCOMMITTED.
 */
const TRANSACTION = { isolation: Firebird.ISOLATION_READ_UNCOMMITTED, wait: true };

/**
 * Limits of one EXECUTE BLOCK in bulkInsert: every INSERT is a context and a statement may hold
 * 255 of them; Firebird 3 caps a statement's text at 64 KB.
 */
const BULK_BLOCK_ROWS = 250;
const BULK_BLOCK_BYTES = 60_000;

export function firebirdOptions(target: ServerTarget): Options {
  return {
    host: target.host,
    port: target.port,
    database: target.database,
    user: target.user,
    password: target.password ?? '',
    encoding: 'UTF8',
    // BIGINT sums come back exact (a string past 2^53) instead of a rounded number.
    numericMode: Firebird.NUMERIC_MODE_SAFE,
    connectTimeout: 10_000,
  };
}

interface WireStatement extends NativeStatement {
  connection: { statementInfo(statement: NativeStatement, items: readonly number[], callback: (err: unknown, info?: { buffer?: Buffer }) => void): void };
}

export class FirebirdDriver implements Driver {
  readonly dbms = 'firebird';
  readonly blocking = false;
  readonly target: string;

  constructor(private readonly config: ServerTarget) {
    this.target = describeTarget(config);
  }

  async connect(): Promise<Connection> {
    try {
      return new FirebirdConnection(await attach(this.config), this.config);
    } catch (error) {
      throw classifyFirebirdError(error, this.config);
    }
  }

  async serverInfo(conn: Connection): Promise<ServerInfo> {
    const [[version]] = (await conn.query("SELECT rdb$get_context('SYSTEM', 'ENGINE_VERSION') FROM rdb$database")) as [[string]];
    const [[pageSize, pageBuffers, forcedWrites, dialect, odsMajor, odsMinor, sweep]] = (await conn.query(
      'SELECT mon$page_size, mon$page_buffers, mon$forced_writes, mon$sql_dialect, mon$ods_major, mon$ods_minor, mon$sweep_interval FROM mon$database',
    )) as [[number, number, number, number, number, number, number]];
    const settings: Record<string, string> = {
      page_size: String(pageSize),
      page_buffers: String(pageBuffers),
      forced_writes: forcedWrites === 1 ? 'on' : 'off',
      sql_dialect: String(dialect),
      ods: `${odsMajor}.${odsMinor}`,
      sweep_interval: String(sweep),
    };
    // ServerMode (Super, SuperClassic, Classic) is in firebird.conf, readable through
    // RDB$CONFIG only from Firebird 4; Firebird 3 tells it apart by the server's name.
    const [[server]] = (await conn.query("SELECT rdb$get_context('SYSTEM', 'NETWORK_PROTOCOL') FROM rdb$database")) as [[string | null]];
    if (server) settings['network_protocol'] = server;
    // With forced writes off, Firebird leaves writing pages to the OS cache: a crash of the machine
    // can take back acknowledged commits.
    const durabilityRisks = settings['forced_writes'] === 'on' ? [] : ['forced_writes=off'];
    return { dbms: 'firebird', version: `Firebird ${version}`, settings, durabilityRisks };
  }

  /**
   * Firebird 3 has no SQL that changes server or database settings: firebird.conf and
   * databases.conf are read at start (or per new attachment under Classic), and forced writes,
   * buffers and sweep interval change through gfix, outside any attachment headroom holds.
   */
  async planSetting(_conn: Connection, name: string): Promise<SettingPlan> {
    throw new UserError(
      `--set ${name}: Firebird 3 has no SQL to change server settings, so headroom cannot apply it`,
      'set it in firebird.conf or databases.conf and restart, or with gfix (e.g. gfix -write async DATABASE for forced writes off), then run without --set',
    );
  }

  observe(conn: Connection): DbmsObservation {
    return observeFirebird(conn);
  }

  /** Firebird has no server-wide attachment limit by default (only OS and memory limits). */
  async connectionBudget(): Promise<ConnectionBudget | undefined> {
    return undefined;
  }

  async tableExists(conn: Connection, table: string): Promise<boolean> {
    // Unquoted identifiers are stored upper case, padded to the column's width.
    const rows = await conn.query('SELECT 1 FROM rdb$relations WHERE TRIM(rdb$relation_name) = ?', [table.toUpperCase()]);
    return rows.length > 0;
  }

  async close(): Promise<void> {}
}

/**
 * A prepared statement. Firebird answers an execute with no row count, so run() asks for it
 * (op_info_sql) and all() fetches the rows; both requests are written right behind the execute
 * and share its round trip (bench/firebird-driver-cpu).
 */
class FirebirdStatement implements Statement {
  constructor(
    private readonly conn: FirebirdConnection,
    private readonly prepared: WireStatement,
  ) {}

  run(params: readonly SqlValue[] = []): Promise<number> {
    return this.conn.within((tx) =>
      new Promise<number>((resolve, reject) => {
        let failed: unknown;
        this.prepared.execute(tx, wireParams(params), (err) => {
          if (err) failed = err;
        });
        this.prepared.connection.statementInfo(this.prepared, wire.RECORDS_INFO, (err, info) => {
          if (failed !== undefined || err) return reject(failed ?? err);
          const counts = parseRecordCounts(info?.buffer);
          resolve(counts ? counts.insertCount + counts.updateCount + counts.deleteCount : 0);
        });
      }),
    );
  }

  all(params: readonly SqlValue[] = []): Promise<Row[]> {
    return this.conn.within((tx) =>
      new Promise<Row[]>((resolve, reject) => {
        let failed: unknown;
        this.prepared.execute(tx, wireParams(params), (err) => {
          if (err) failed = err;
        });
        this.prepared.fetchAll(tx, (err, rows) => {
          if (failed !== undefined || err) return reject(failed ?? err);
          resolve((rows ?? []) as Row[]);
        });
      }),
    );
  }
}

/**
 * Firebird runs every statement inside a transaction it was told to start. Between begin() and
 * commit()/rollback() statements share that transaction; outside, each query() and each
 * Statement call runs in a transaction of its own that commits when it succeeds and rolls back
 * when it fails (autocommit, as the other DBMSs behave).
 */
class FirebirdConnection implements Connection {
  private readonly statements = new Map<string, FirebirdStatement>();
  private tx: Transaction | undefined;

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
      tx = await this.db.transactionAsync(TRANSACTION);
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
      const prepared = await this.within((tx) => tx.newStatementAsync(sql));
      statement = new FirebirdStatement(this, prepared as WireStatement);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  query(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    return this.within(async (tx) => ((await tx.executeAsync(sql, wireParams(params))) ?? []) as Row[]);
  }

  async begin(): Promise<void> {
    if (this.tx) throw classifyFirebirdError(new Error('begin() inside an open transaction'));
    try {
      this.tx = await this.db.transactionAsync(TRANSACTION);
    } catch (error) {
      throw classifyFirebirdError(error);
    }
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

/**
 * Firebird.attach() as node-firebird writes it, except that a failed login or a database the
 * server cannot open also closes the socket: node-firebird leaves it open, which keeps the
 * process alive.
 */
function attach(target: ServerTarget): Promise<Database> {
  const options = firebirdOptions(target);
  return new Promise((resolve, reject) => {
    const fail = (error: unknown): void => {
      destroySocket(cnx);
      reject(error);
    };
    // isPool: node-firebird reconnects and re-attaches by itself after a lost socket unless it
    // belongs to a pool; headroom's terminals reconnect on their own, and need to see the loss.
    const internal = { ...options, isPool: true } as ConstructorParameters<typeof WireConnection>[3];
    const cnx: WireConnection = new WireConnection(
      target.host,
      target.port,
      (err) => {
        if (err) return fail(err);
        cnx.connect(internal, (err2) => {
          if (err2) return fail(err2);
          cnx.attach(internal, (err3, db) => (err3 || !db ? fail(err3) : resolve(db as unknown as Database)));
        });
      },
      internal,
    );
  });
}

/** node-firebird's socket is a proxy that hands what it lacks (destroy) to the net.Socket. */
function destroySocket(cnx: WireConnection): void {
  (cnx._socket as unknown as NetSocket).destroy();
}

/**
 * node-firebird drops the connection when handed a bigint (2.17); BIGINT columns take the
 * decimal text just as well.
 */
function wireParams(params: readonly SqlValue[]): unknown[] {
  return params.map((v) => (typeof v === 'bigint' ? v.toString() : v));
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
