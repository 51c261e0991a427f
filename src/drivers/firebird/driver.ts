import type { Database, Options } from 'node-firebird';
import type WireConnection from 'node-firebird/lib/wire/connection.js';
import path from 'node:path';
import type { DbmsObservation } from '../observation.js';
import { observeFirebird } from './observe.js';
import type { Connection, ConnectionBudget, Driver, ServerInfo, SettingPlan } from '../driver.js';
import { UserError } from '../../errors.js';
import type { ServerTarget } from '../../config/target.js';
import { describeTarget } from '../../config/target.js';
import { FirebirdConnection, destroySocket } from './connection.js';
import { classifyFirebirdError } from './errors.js';
import { DbError } from '../errors.js';
import { identifyServer, WrongServerError } from '../probe.js';
import { firebirdServerInfo } from './server-info.js';
import { firebird, loadFirebird } from './library.js';

export function firebirdOptions(target: ServerTarget): Options {
  return {
    host: target.host,
    port: target.port,
    database: target.database,
    user: target.user,
    password: target.password ?? '',
    encoding: 'UTF8',
    // BIGINT sums come back exact (a string past 2^53) instead of a rounded number.
    numericMode: firebird().Firebird.NUMERIC_MODE_SAFE,
    connectTimeout: target.connectTimeoutMs ?? 10_000,
  };
}

export class FirebirdDriver implements Driver {
  readonly dbms = 'firebird';
  readonly blocking = false;
  readonly pipelines = false;
  readonly target: string;

  constructor(private readonly config: ServerTarget) {
    this.target = describeTarget(config);
  }

  async connect(): Promise<Connection> {
    await loadFirebird();
    try {
      return new FirebirdConnection(await attach(this.config), this.config);
    } catch (error) {
      throw await classifyAttachError(error, this.config);
    }
  }

  serverInfo(conn: Connection): Promise<ServerInfo> {
    return firebirdServerInfo(conn, () => this.connect());
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

  async dataFolder(): Promise<string | undefined> {
    // An alias has no folder of its own here; a file path does.
    return this.config.database.startsWith('/') ? path.dirname(this.config.database) : undefined;
  }

  async tableExists(conn: Connection, table: string): Promise<boolean> {
    // Unquoted identifiers are stored upper case, padded to the column's width.
    const rows = await conn.query('SELECT 1 FROM rdb$relations WHERE TRIM(rdb$relation_name) = ?', [table.toUpperCase()]);
    return rows.length > 0;
  }

  async close(): Promise<void> {}
}

/**
 * A failed attachment, classified; when the server dropped the connection without a Firebird
 * status, it may be another DBMS's (a Firebird URL at PostgreSQL's or MariaDB's port): the error
 * then says which answered.
 */
export async function classifyAttachError(error: unknown, target: ServerTarget): Promise<DbError> {
  const classified = classifyFirebirdError(error, target);
  if (classified.errorClass !== 'connection_lost' || classified.code === 'ECONNREFUSED' || /^\d+$/.test(classified.code ?? '')) return classified;
  const where = `${target.host}:${target.port}`;
  const found = await identifyServer({ host: target.host, port: target.port });
  if (found.kind !== undefined && found.kind !== 'Firebird') return classifyFirebirdError(new WrongServerError('Firebird', where, found), target);
  // node-firebird's "Connection to Firebird server was lost." names no server.
  if (classified.message.includes(where)) return classified;
  return new DbError(classified.errorClass, `${classified.message} (${where}, while attaching)`, classified.code, classified.hint, { cause: error });
}

/**
 * Firebird.attach() as node-firebird writes it, except that a failed login or a database the
 * server cannot open also closes the socket: node-firebird leaves it open, which keeps the
 * process alive; and that the whole attachment has the connect timeout: node-firebird's covers
 * only the TCP connect, and waits without end for a server that accepts and never answers.
 */
function attach(target: ServerTarget): Promise<Database> {
  const options = firebirdOptions(target);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const where = `${target.host}:${target.port}`;
      const timeout = Object.assign(new Error(`timeout expired while attaching at ${where}: the server accepted the connection, but no Firebird answer came`), { code: 'ETIMEDOUT' });
      fail(timeout);
    }, options.connectTimeout);
    const fail = (error: unknown): void => {
      clearTimeout(timer);
      destroySocket(cnx);
      reject(error);
    };
    // isPool: node-firebird reconnects and re-attaches by itself after a lost socket unless it
    // belongs to a pool; headroom's terminals reconnect on their own, and need to see the loss.
    const internal = { ...options, isPool: true } as ConstructorParameters<typeof WireConnection>[3];
    const cnx: WireConnection = new (firebird().WireConnection)(
      target.host,
      target.port,
      (err) => {
        if (err) return fail(err);
        cnx.connect(internal, (err2) => {
          if (err2) return fail(err2);
          cnx.attach(internal, (err3, db) => {
            if (err3 || !db) return fail(err3);
            clearTimeout(timer);
            resolve(db as unknown as Database);
          });
        });
      },
      internal,
    );
  });
}

