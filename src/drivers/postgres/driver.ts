import pg from 'pg';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { from as copyFrom } from 'pg-copy-streams';
import type { Connection, ConnectionBudget, Driver, Row, ServerInfo, SqlValue, Statement } from '../driver.js';
import type { ServerTarget } from '../../config/target.js';
import { describeTarget } from '../../config/target.js';
import { numberPlaceholders } from '../placeholders.js';
import { classifyPostgresError } from './errors.js';
import { copyChunks } from './copy.js';

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

export class PostgresDriver implements Driver {
  readonly dbms = 'postgres';
  readonly blocking = false;
  readonly target: string;

  constructor(private readonly config: ServerTarget) {
    this.target = describeTarget(config);
  }

  async connect(): Promise<Connection> {
    const client = new pg.Client({
      host: this.config.host,
      port: this.config.port,
      user: this.config.user,
      password: this.config.password,
      database: this.config.database,
      connectionTimeoutMillis: 10_000,
      application_name: 'headroom',
    });
    const connection = new PostgresConnection(client, this.config);
    // Without a listener, an 'error' event (server gone between queries) would end the process;
    // the next query on this client then fails and is classified as connection_lost.
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (error) {
      throw classifyPostgresError(error, this.config);
    }
    return connection;
  }

  async serverInfo(conn: Connection): Promise<ServerInfo> {
    const [[version]] = (await conn.query('SELECT version()')) as [[string]];
    const shown = await conn.query(`SELECT ${SETTINGS.map((s) => `current_setting('${s}')`).join(', ')}`);
    const settings: Record<string, string> = {};
    SETTINGS.forEach((name, i) => (settings[name] = String(shown[0]?.[i] ?? '')));
    return { dbms: 'postgres', version, settings };
  }

  async connectionBudget(conn: Connection): Promise<ConnectionBudget> {
    // Ordinary roles cannot use the superuser_reserved_connections slots.
    const [[max, inUse]] = (await conn.query(
      `SELECT current_setting('max_connections')::int
              - CASE WHEN (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
                     THEN 0 ELSE current_setting('superuser_reserved_connections')::int END,
              (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend')`,
    )) as [[number, number]];
    return { max, inUse };
  }

  async tableExists(conn: Connection, table: string): Promise<boolean> {
    const [[exists]] = (await conn.query('SELECT to_regclass(?) IS NOT NULL', [table])) as [[boolean]];
    return exists;
  }

  async close(): Promise<void> {}
}

class PostgresStatement implements Statement {
  constructor(
    private readonly client: pg.Client,
    private readonly name: string,
    private readonly text: string,
    private readonly target: ServerTarget,
  ) {}

  async run(params: readonly SqlValue[] = []): Promise<number> {
    try {
      const result = await this.client.query({ name: this.name, text: this.text, values: params as unknown[], rowMode: 'array' });
      return result.rowCount ?? 0;
    } catch (error) {
      throw classifyPostgresError(error, this.target);
    }
  }

  async all(params: readonly SqlValue[] = []): Promise<Row[]> {
    try {
      const result = await this.client.query({ name: this.name, text: this.text, values: params as unknown[], rowMode: 'array' });
      return result.rows as Row[];
    } catch (error) {
      throw classifyPostgresError(error, this.target);
    }
  }
}

class PostgresConnection implements Connection {
  private readonly statements = new Map<string, PostgresStatement>();

  constructor(
    private readonly client: pg.Client,
    private readonly target: ServerTarget,
  ) {}

  async prepare(sql: string): Promise<Statement> {
    let statement = this.statements.get(sql);
    if (!statement) {
      // node-postgres parses a named statement on its first execution and reuses it after.
      statement = new PostgresStatement(this.client, `headroom_${this.statements.size + 1}`, numberPlaceholders(sql), this.target);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async query(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    try {
      const text = params.length > 0 ? numberPlaceholders(sql) : sql;
      const result = await this.client.query({ text, values: params as unknown[], rowMode: 'array' });
      return (result.rows ?? []) as Row[];
    } catch (error) {
      throw classifyPostgresError(error, this.target);
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
    let count = 0;
    const counted = function* () {
      for (const row of rows) {
        count++;
        yield row;
      }
    };
    try {
      const stream = this.client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
      await pipeline(Readable.from(copyChunks(counted())), stream);
    } catch (error) {
      throw classifyPostgresError(error, this.target);
    }
    return count;
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => {});
  }

  private async simple(sql: string): Promise<void> {
    try {
      await this.client.query(sql);
    } catch (error) {
      throw classifyPostgresError(error, this.target);
    }
  }
}
