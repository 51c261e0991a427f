import net from 'node:net';
import type { Row, SqlValue } from '../../driver.js';
import { md5Answer, ScramSession } from './auth.js';
import { PgConnectionError, PgServerError } from './pg-error.js';
import { decodeText, encodeText } from './values.js';
import { MessageWriter } from './writer.js';

export interface WireOptions {
  host: string;
  port: number;
  user: string;
  password: string | undefined;
  database: string;
  applicationName: string;
  connectTimeoutMs: number;
}

/** A statement parsed once on the server under `name`; `types` are its result columns' type OIDs. */
export interface PreparedStatement {
  name: string;
  types: number[];
  /** The constant head of its Bind message: type byte and length are written per call. */
  bindHead: Buffer;
}

/** A simple-protocol Query message encoded once, for statements sent on every transaction (BEGIN, COMMIT). */
export interface EncodedQuery {
  message: Buffer;
}

export function encodeQuery(sql: string): EncodedQuery {
  return { message: new MessageWriter().begin(0x51).cstring(sql).end().take() };
}

/** What the next ReadyForQuery completes. */
interface Pending {
  /** Decode DataRows into `rows` (false: only count them, as UPDATE and INSERT need). */
  wantRows: boolean;
  types: number[];
  rows: Row[];
  rowCount: number;
  error: Error | undefined;
  resolve(pending: Pending): void;
  reject(error: Error): void;
  /** COPY FROM STDIN: called when the server is ready for CopyData. */
  onCopyIn?: () => void;
}

const PROTOCOL_3_0 = 196608;
/** Execute("", 0 = all rows) and Sync, the same bytes after every Bind. */
const EXECUTE_SYNC = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4]);
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);

/**
 * A client for PostgreSQL's frontend/backend protocol v3, written for a benchmark's hot loop: a
 * prepared statement's execution is one socket write (Bind + Execute + Sync) with the constant
 * bytes built once, results of writes are counted without being decoded, and integers are
 * parsed straight from the receive buffer. It covers what headroom needs: startup with trust,
 * password, MD5 or SCRAM-SHA-256 authentication, simple and extended queries, COPY FROM STDIN.
 */
export class WireConnection {
  /** The server's ParameterStatus values (server_version, ...). */
  readonly parameters = new Map<string, string>();
  processId = 0;
  private readonly queue: Pending[] = [];
  private incoming: Buffer | undefined;
  private closedBy: Error | undefined;
  private readonly writer = new MessageWriter();
  private statementCount = 0;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => this.fail(new PgConnectionError(`connection error: ${error.message}`, error.code)));
    socket.on('close', () => this.fail(new PgConnectionError('connection terminated unexpectedly', undefined)));
  }

  static connect(options: WireOptions): Promise<WireConnection> {
    return new Promise((resolve, reject) => {
      const socket = options.host.startsWith('/')
        ? net.connect({ path: `${options.host}/.s.PGSQL.${options.port}` })
        : net.connect({ host: options.host, port: options.port });
      socket.setNoDelay(true);
      const timer = setTimeout(() => socket.destroy(Object.assign(new Error('timeout expired while connecting'), { code: 'ETIMEDOUT' })), options.connectTimeoutMs);
      const connection = new WireConnection(socket);
      const startup: Pending = {
        wantRows: false,
        types: [],
        rows: [],
        rowCount: 0,
        error: undefined,
        resolve: () => {
          clearTimeout(timer);
          resolve(connection);
        },
        reject: (error) => {
          clearTimeout(timer);
          socket.destroy();
          reject(error);
        },
      };
      connection.queue.push(startup);
      connection.authenticate = connection.authenticator(options);
      socket.once('connect', () => {
        const w = connection.writer.beginUntyped().int32(PROTOCOL_3_0);
        for (const [key, value] of [
          ['user', options.user],
          ['database', options.database],
          ['application_name', options.applicationName],
          ['client_encoding', 'UTF8'],
          ['DateStyle', 'ISO'],
        ] as const) {
          w.cstring(key).cstring(value);
        }
        socket.write(w.cstring('').end().take());
      });
    });
  }

  /** Parse + Describe once; the statement is then executed by name. */
  async prepare(sql: string): Promise<PreparedStatement> {
    const name = `h${++this.statementCount}`;
    const w = this.writer;
    w.begin(0x50).cstring(name).cstring(sql).int16(0).end(); // Parse, parameter types inferred
    w.begin(0x44).bytes('S').cstring(name).end(); // Describe statement
    const done = await this.send(Buffer.concat([w.take(), SYNC]), true);
    const head = new MessageWriter();
    head.bytes('\0').cstring(name).int16(0); // unnamed portal, statement, all parameters in text
    return { name, types: done.types, bindHead: head.take() };
  }

  /** Executes a prepared statement: rows when `wantRows`, else only the affected-row count. */
  execute(statement: PreparedStatement, params: readonly SqlValue[], wantRows: boolean): Promise<Pending> {
    const texts: (string | null)[] = new Array(params.length);
    let size = 1 + 4 + statement.bindHead.length + 2 + 2; // type, length, head, nparams, nresultformats
    for (let i = 0; i < params.length; i++) {
      const text = encodeText(params[i]);
      texts[i] = text;
      size += 4 + (text === null ? 0 : Buffer.byteLength(text));
    }
    const out = Buffer.allocUnsafe(size + EXECUTE_SYNC.length);
    out[0] = 0x42; // Bind
    out.writeInt32BE(size - 1, 1);
    let at = 5 + statement.bindHead.copy(out, 5);
    out.writeInt16BE(params.length, at);
    at += 2;
    for (const text of texts) {
      if (text === null) {
        out.writeInt32BE(-1, at);
        at += 4;
      } else {
        const written = out.write(text, at + 4, 'utf8');
        out.writeInt32BE(written, at);
        at += 4 + written;
      }
    }
    out.writeInt16BE(0, at); // results in text
    EXECUTE_SYNC.copy(out, at + 2);
    return this.send(out, wantRows, statement.types);
  }

  /** A statement without parameters through the simple protocol (several statements allowed). */
  simpleQuery(sql: string | EncodedQuery): Promise<Pending> {
    return this.send(typeof sql === 'string' ? encodeQuery(sql).message : sql.message, true);
  }

  /** A one-off statement with parameters through the unnamed statement and portal. */
  extendedQuery(sql: string, params: readonly SqlValue[]): Promise<Pending> {
    const w = this.writer;
    w.begin(0x50).cstring('').cstring(sql).int16(0).end();
    w.begin(0x42).cstring('').cstring('').int16(0).int16(params.length);
    for (const value of params) w.lengthPrefixed(encodeText(value));
    w.int16(0).end();
    w.begin(0x44).bytes('P').cstring('').end(); // Describe portal: its RowDescription gives the types
    return this.send(Buffer.concat([w.take(), EXECUTE_SYNC]), true);
  }

  /** COPY ... FROM STDIN: streams text-format chunks, honouring the socket's back-pressure. */
  async copyIn(sql: string, chunks: Iterable<string>): Promise<number> {
    let ready!: () => void;
    const copyReady = new Promise<void>((resolve) => (ready = resolve));
    const done = this.send(this.writer.begin(0x51).cstring(sql).end().take(), false, undefined, ready);
    await Promise.race([copyReady, done]);
    try {
      for (const chunk of chunks) {
        if (this.closedBy) break;
        const length = Buffer.byteLength(chunk);
        const message = Buffer.allocUnsafe(5 + length);
        message[0] = 0x64; // CopyData
        message.writeInt32BE(4 + length, 1);
        message.write(chunk, 5, 'utf8');
        if (!this.socket.write(message)) await new Promise<void>((resolve) => this.socket.once('drain', resolve));
      }
    } catch (error) {
      // The rows' source failed: CopyFail makes the server roll the COPY back and leaves the
      // connection usable; its answer (an error) is expected, the source's error is the one to tell.
      this.socket.write(this.writer.begin(0x66).cstring(`the rows to copy failed: ${(error as Error).message}`).end().take());
      await done.catch(() => undefined);
      throw error;
    }
    this.socket.write(Buffer.from([0x63, 0, 0, 0, 4])); // CopyDone
    return (await done).rowCount;
  }

  async close(): Promise<void> {
    if (this.closedBy) return;
    this.closedBy = new PgConnectionError('connection closed by the client', undefined);
    await new Promise<void>((resolve) => this.socket.end(Buffer.from([0x58, 0, 0, 0, 4]), resolve)); // Terminate
    this.socket.destroy();
  }

  private send(message: Buffer, wantRows: boolean, types: number[] = [], onCopyIn?: () => void): Promise<Pending> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    return new Promise((resolve, reject) => {
      this.queue.push({ wantRows, types, rows: [], rowCount: 0, error: undefined, resolve, reject, onCopyIn });
      this.socket.write(message);
    });
  }

  private fail(error: Error): void {
    if (this.closedBy === undefined) this.closedBy = error;
    for (const pending of this.queue.splice(0)) pending.reject(pending.error ?? this.closedBy);
  }

  /** Set while connecting; answers the server's Authentication requests. */
  private authenticate: ((kind: number, body: Buffer, start: number, end: number) => void) | undefined;

  private authenticator(options: WireOptions): (kind: number, body: Buffer, start: number, end: number) => void {
    let scram: ScramSession | undefined;
    const password = (): string => {
      if (options.password === undefined) throw new PgServerError('the server asks for a password and none was given', '28P01', 'FATAL', undefined, undefined);
      return options.password;
    };
    return (kind, body, start, end) => {
      const w = this.writer;
      switch (kind) {
        case 0: // AuthenticationOk
          return;
        case 3: // cleartext
          this.socket.write(w.begin(0x70).cstring(password()).end().take());
          return;
        case 5: // MD5 with a 4-byte salt
          this.socket.write(w.begin(0x70).cstring(md5Answer(options.user, password(), body.subarray(start, start + 4))).end().take());
          return;
        case 10: {
          // SASL: the mechanisms offered, NUL-separated
          if (!body.toString('utf8', start, end).split('\0').includes('SCRAM-SHA-256')) throw new Error('the server offers no SASL mechanism headroom speaks');
          scram = new ScramSession(password());
          const first = Buffer.from(scram.clientFirst());
          this.socket.write(w.begin(0x70).cstring('SCRAM-SHA-256').int32(first.length).bytes(first).end().take());
          return;
        }
        case 11: // SASLContinue
          this.socket.write(w.begin(0x70).bytes(scram!.clientFinal(body.toString('utf8', start, end))).end().take());
          return;
        case 12: // SASLFinal
          scram!.verifyServerFinal(body.toString('utf8', start, end));
          return;
        default:
          throw new Error(`unsupported authentication request ${kind}`);
      }
    };
  }

  private receive(chunk: Buffer): void {
    let data = chunk;
    if (this.incoming !== undefined) {
      data = Buffer.concat([this.incoming, chunk]);
      this.incoming = undefined;
    }
    let at = 0;
    while (data.length - at >= 5) {
      const length = data.readInt32BE(at + 1);
      const end = at + 1 + length;
      if (end > data.length) break;
      try {
        this.handle(data[at]!, data, at + 5, end);
      } catch (error) {
        this.socket.destroy();
        this.fail(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      at = end;
    }
    if (at < data.length) this.incoming = data.subarray(at);
  }

  private handle(type: number, data: Buffer, start: number, end: number): void {
    const pending = this.queue[0];
    switch (type) {
      case 0x44: {
        // DataRow
        if (!pending) return;
        pending.rowCount++;
        if (!pending.wantRows) return;
        const columns = data.readInt16BE(start);
        const row: unknown[] = new Array(columns);
        let at = start + 2;
        for (let i = 0; i < columns; i++) {
          const length = data.readInt32BE(at);
          at += 4;
          if (length < 0) row[i] = null;
          else {
            row[i] = decodeText(pending.types[i] ?? 0, data, at, at + length);
            at += length;
          }
        }
        pending.rows.push(row);
        return;
      }
      case 0x43: {
        // CommandComplete: the tag's last word is the row count ("UPDATE 1", "INSERT 0 1", "COPY 5")
        if (!pending) return;
        const tag = data.toString('latin1', start, end - 1);
        const count = Number(tag.slice(tag.lastIndexOf(' ') + 1));
        if (Number.isInteger(count)) pending.rowCount = count;
        return;
      }
      case 0x5a: // ReadyForQuery
        if (!pending) return;
        this.queue.shift();
        if (pending.error) pending.reject(pending.error);
        else pending.resolve(pending);
        return;
      case 0x54: {
        // RowDescription: keep each column's type OID
        if (!pending) return;
        const columns = data.readInt16BE(start);
        const types: number[] = new Array(columns);
        let at = start + 2;
        for (let i = 0; i < columns; i++) {
          at = data.indexOf(0, at) + 1 + 6; // name, table OID, column number
          types[i] = data.readInt32BE(at);
          at += 12; // type OID, size, modifier, format
        }
        pending.types = types;
        pending.rows = [];
        return;
      }
      case 0x45: {
        // ErrorResponse: the request fails at the next ReadyForQuery; a FATAL one closes the socket
        const error = PgServerError.parse(data, start, end);
        if (pending) pending.error ??= error;
        else this.closedBy ??= error;
        return;
      }
      case 0x52: // Authentication
        this.authenticate?.(data.readInt32BE(start), data, start + 4, end);
        return;
      case 0x53: {
        // ParameterStatus
        const split = data.indexOf(0, start);
        this.parameters.set(data.toString('utf8', start, split), data.toString('utf8', split + 1, end - 1));
        return;
      }
      case 0x4b: // BackendKeyData
        this.processId = data.readInt32BE(start);
        return;
      case 0x47: // CopyInResponse
        pending?.onCopyIn?.();
        return;
      default:
        // ParseComplete, BindComplete, NoData, ParameterDescription, NoticeResponse, EmptyQuery...
        return;
    }
  }
}
