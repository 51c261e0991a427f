import type { Options } from 'node-firebird';
import path from 'node:path';
import type { DbmsObservation } from '../observation.js';
import { observeFirebird } from './observe.js';
import type { Connection, ConnectionBudget, Driver, ServerInfo, SettingPlan } from '../driver.js';
import { UserError } from '../../errors.js';
import type { ServerTarget } from '../../config/target.js';
import { describeTarget } from '../../config/target.js';
import { FirebirdConnection } from './connection.js';
import { classifyFirebirdError } from './errors.js';
import { DbError } from '../errors.js';
import { identifyServer, WrongServerError } from '../probe.js';
import { firebirdServerInfo } from './server-info.js';
import { FirebirdWire } from './wire/connection.js';

/** node-firebird's options, for creating and dropping database files (database.ts). */
export function firebirdOptions(target: ServerTarget): Options {
  return {
    host: target.host,
    port: target.port,
    database: target.database,
    user: target.user,
    password: target.password ?? '',
    encoding: 'UTF8',
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

const DEFAULT_PASSWORD = 'masterkey';

function attach(target: ServerTarget): Promise<FirebirdWire> {
  return FirebirdWire.connect({
    host: target.host,
    port: target.port,
    database: target.database,
    user: target.user,
    // No password given: Firebird's installation default, as node-firebird (headroom's earlier client) assumed.
    password: target.password || DEFAULT_PASSWORD,
    connectTimeoutMs: target.connectTimeoutMs ?? 10_000,
  });
}
