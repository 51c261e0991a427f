import type { Row, SqlValue } from '../../driver.js';
import { md5Answer, ScramSession } from './auth.js';
import { serverEndPoint } from './channel-binding.js';
import { openPostgresTransport, type Attempt, type SslAnswering } from './tls-negotiation.js';
import { PgConnectionError, PgServerError } from './pg-error.js';
import { DbError } from '../../errors.js';
import { Framer } from '../../transport/framer.js';
import { describeAddress, TransportError, type SocketAddress, type Transport, type TransportKind } from '../../transport/transport.js';
import { describeGreeting, identifyServer, WrongServerError } from '../../probe.js';
import { TlsError, type TlsContext, type TlsSession } from '../../transport/tls.js';
import { encodeText } from './values.js';
import {
  commandCompleteCount,
  readAuthenticationKind,
  readBackendProcessId,
  readDataRow,
  readParameterStatus,
  readRowDescription,
  scanMessages,
  type MessageSink,
} from './messages.js';
import { BindWriter } from './bind.js';
import { QueryWriter, type PgLiteralQuery } from './literal-query.js';
import { literalText, type LiteralValue } from '../../literals.js';
import { MessageWriter } from './writer.js';
import { PgThresholdStatement } from './threshold-statement.js';
import type { DeclaredType } from '../../driver.js';

export interface WireOptions {
  host: string;
  port: number;
  user: string;
  password: string | undefined;
  database: string;
  applicationName: string;
  /** The startup packet's `options` (command-line switches for the backend, e.g. `-c work_mem=64MB`). */
  options?: string;
  connectTimeoutMs: number;
  /** TLS as sslmode and its files ask (drivers/postgres/tls-options.ts); absent: none. */
  tls?: TlsContext;
  /**
   * Turns every error a request fails with into the driver's own (its classification), so that
   * the driver's statements can hand out this client's promises without wrapping each.
   */
  classify?: (error: Error) => Error;
}

/** A statement parsed once on the server under `name`; `types` are its result columns' type OIDs. */
export interface PgPreparedStatement {
  name: string;
  types: number[];
  /** The constant head of its Bind message: type byte and length are written per call. */
  bindHead: Buffer;
  /** Its text, for the errors of its executions (DbError.sql). */
  sql: string;
}

/** A simple-protocol Query message encoded once, for statements sent on every transaction (BEGIN, COMMIT). */
export interface EncodedQuery {
  message: Buffer;
  sql: string;
}

export function encodeQuery(sql: string): EncodedQuery {
  return { message: new MessageWriter().begin(0x51).cstring(sql).end().take(), sql };
}

/** What a request's promise resolves to: the whole record, only the row count, or only the rows. */
const WHOLE = 0;
const COUNT = 1;
const ROWS = 2;
const NOTHING = 3;
type Answer = typeof WHOLE | typeof COUNT | typeof ROWS | typeof NOTHING;
/** A request's rows until its first DataRow: shared, never pushed to. */
const NO_ROWS: Row[] = [];
const NO_TYPES: number[] = [];
const unset = (): void => {};

/** What the next ReadyForQuery completes. */
export interface Pending {
  answer: Answer;
  /** Decode DataRows into `rows` (false: only count them, as UPDATE and INSERT need). */
  wantRows: boolean;
  types: number[];
  rows: Row[];
  rowCount: number;
  error: Error | undefined;
  /** The statement's text where the request has one, put on its error (DbError.sql). */
  sql: string | undefined;
  /**
   * The text the request has the server parse (Query or Parse), which an error's position counts
   * into; a literal query's pieces, with `values` written in place, only where an error needs it.
   */
  parsed: string | PgLiteralQuery | undefined;
  values: readonly LiteralValue[] | undefined;
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** COPY FROM STDIN: called when the server is ready for CopyData. */
  onCopyIn?: () => void;
  /** queryResults(): each statement's result in turn, with its column names (undefined: it returned no rows). */
  results?: StatementResult[];
  columns?: string[] | undefined;
}

/** One statement's answer within a Query message of several. */
export interface StatementResult {
  columns: string[] | undefined;
  rows: Row[];
}

const PROTOCOL_3_0 = 196608;
/** Startup failures of encrypted connections: sslmode=prefer tries those once more in plaintext. */
const REFUSED_OVER_TLS = new WeakSet<Error>();
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);
const EXECUTE_SYNC = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4]);
const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);
/** Parse("", "BEGIN"), Bind to the unnamed portal, Execute: pgJDBC's BEGIN ahead of a transaction's first query. */
const UNNAMED_BEGIN = Buffer.concat([
  new MessageWriter().begin(0x50).cstring('').cstring('BEGIN').int16(0).end().take(),
  new MessageWriter().begin(0x42).cstring('').cstring('').int16(0).int16(0).int16(0).end().take(),
  new MessageWriter().begin(0x45).cstring('').int32(0).end().take(),
]);
/** What follows an unnamed Parse without parameters: Bind (text results), Describe portal, Execute (all rows), Sync. */
const UNNAMED_BIND_DESCRIBE_EXECUTE_SYNC = Buffer.concat([
  new MessageWriter().begin(0x42).cstring('').cstring('').int16(0).int16(0).int16(0).end().take(),
  new MessageWriter().begin(0x44).bytes('P').cstring('').end().take(),
  EXECUTE_SYNC,
]);
/** How long a startup may go unanswered before the client asks what listens at the address (probe.ts). */
const SILENCE_BEFORE_PROBE_MS = 1000;

/**
 * A client for PostgreSQL's frontend/backend protocol v3, written for a benchmark's hot loop: a
 * prepared statement's execution is one write (Bind + Execute + Sync) built in a reused buffer
 * with the constant bytes made once, results of writes are counted without being decoded, and
 * messages are parsed where the transport put them (drivers/transport). It covers what headroom needs: startup with trust,
 * password, MD5 or SCRAM-SHA-256 authentication, simple and extended queries, COPY FROM STDIN.
 */
export class WireConnection implements SslAnswering, MessageSink {
  /** The server's ParameterStatus values (server_version, ...). */
  readonly parameters = new Map<string, string>();
  processId = 0;
  private readonly queue: Pending[] = [];
  private readonly framer = new Framer((data, start, end) => this.parse(data, start, end));
  private readonly writer = new MessageWriter();
  private readonly binds = new BindWriter();
  private readonly literals = new QueryWriter();
  private transport: Transport | undefined;
  private closedBy: Error | undefined;
  private statementCount = 0;
  /** Until the first byte from the server: the startup's answer must begin as PostgreSQL's does. */
  private awaitingFirstByte = true;
  /** The server's address as errors name it (host:port, or the socket file). */
  private where = '';
  /** The TLS session when the connection is encrypted. */
  tls: TlsSession | undefined;
  /** Which mechanism the server authenticated the client with (SCRAM-SHA-256-PLUS when channel-bound). */
  authentication = 'trust';
  /** Set while waiting for the one-byte answer to SSLRequest. */
  private answering: { resolve(byte: number): void; reject(error: Error): void; timer: NodeJS.Timeout } | undefined;

  private constructor(private readonly classify: (error: Error) => Error) {}

  static async connect(options: WireOptions): Promise<WireConnection> {
    const mode = options.tls?.settings.mode;
    if (mode !== 'allow' && mode !== 'prefer') return WireConnection.connectOnce(options, 'asked');
    // libpq's second try: allow asks again over TLS when the server refuses the plaintext login,
    // prefer again in plaintext when it refuses the encrypted one (pg_hba.conf's hostnossl).
    try {
      return await WireConnection.connectOnce(options, mode === 'allow' ? 'plaintext' : 'asked');
    } catch (error) {
      // The server's refusal arrives classified by the driver: its cause is the ErrorResponse.
      const refused = error instanceof PgServerError || (error as Error).cause instanceof PgServerError;
      if (!refused || (mode === 'prefer' && !REFUSED_OVER_TLS.has(error as Error))) throw error;
      return WireConnection.connectOnce(options, mode === 'allow' ? 'tls' : 'plaintext');
    }
  }

  private static async connectOnce(options: WireOptions, attempt: Attempt): Promise<WireConnection> {
    const connection = new WireConnection(options.classify ?? ((error) => error));
    const address: SocketAddress = options.host.startsWith('/')
      ? { path: `${options.host}/.s.PGSQL.${options.port}` }
      : { host: options.host, port: options.port };
    connection.where = describeAddress(address);
    const startedMs = Date.now();
    let transport: Transport;
    const opening = openPostgresTransport(connection, address, options.host, options.tls, options.connectTimeoutMs, attempt);
    let silenceTimer: NodeJS.Timeout | undefined;
    try {
      // A server that stays silent after the TLS request may be one that waits for its own
      // protocol (Firebird): ask what it is rather than wait out the whole timeout.
      const silence = new Promise<never>((_, reject) => {
        silenceTimer = setTimeout(
          () => void connection.wrongServer(address).then((error) => error && reject(error)),
          Math.min(SILENCE_BEFORE_PROBE_MS, options.connectTimeoutMs / 2),
        );
      });
      transport = await Promise.race([opening, silence]);
    } catch (error) {
      // What opened after the probe answered is not used; its pending TLS answer is failed.
      void opening.then(
        (late) => late.close(),
        () => {},
      );
      connection.onClose(new TransportError('the connection was abandoned', 'ECONNABORTED'));
      if (error instanceof DbError) throw error; // the probe's answer, already classified
      // Closed, reset, or an answer to the TLS request that is neither S nor N, before a byte of
      // PostgreSQL's: say what listens there if it is something else.
      if (!(error instanceof TlsError) || error.code === 'TLS_PROTOCOL') {
        const other = await connection.wrongServer(address);
        if (other) throw other;
      }
      if (error instanceof TlsError || error instanceof PgConnectionError) throw error;
      throw new PgConnectionError((error as Error).message, (error as TransportError).code, (error as TransportError).address);
    } finally {
      clearTimeout(silenceTimer);
    }
    connection.transport = transport;
    connection.tls = (transport as { session?: TlsSession }).session;
    connection.authenticate = connection.authenticator(options);
    const w = connection.writer.beginUntyped().int32(PROTOCOL_3_0);
    for (const [key, value] of [
      ['user', options.user],
      ['database', options.database],
      ['application_name', options.applicationName],
      ['client_encoding', 'UTF8'],
      ['DateStyle', 'ISO'],
      ...(options.options === undefined ? [] : [['options', options.options] as const]),
    ] as const) {
      w.cstring(key).cstring(value);
    }
    const ready = connection.send(w.cstring('').end().take(), false);
    const remainingMs = (): number => Math.max(1, options.connectTimeoutMs - (Date.now() - startedMs));
    let timer: NodeJS.Timeout | undefined;
    let probeTimer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new PgConnectionError(`timeout expired while connecting to ${connection.where}`, 'ETIMEDOUT')), remainingMs());
      // A server that stays silent after the startup packet may be one that waits for its own
      // protocol (Firebird): ask what it is rather than wait out the whole timeout.
      probeTimer = setTimeout(
        () => {
          if (connection.awaitingFirstByte) void connection.wrongServer(address).then((error) => error && reject(error));
        },
        Math.min(SILENCE_BEFORE_PROBE_MS, remainingMs() / 2),
      );
    });
    try {
      await Promise.race([ready, timeout]);
    } catch (error) {
      transport.close();
      // Closed, reset or timed out before a byte of PostgreSQL's: say what listens there if it is something else.
      if (connection.awaitingFirstByte && !connection.tls && !(error instanceof WrongServerError)) throw (await connection.wrongServer(address)) ?? error;
      if (connection.tls) REFUSED_OVER_TLS.add(error as Error);
      throw error;
    } finally {
      clearTimeout(timer);
      clearTimeout(probeTimer);
    }
    connection.authenticate = undefined;
    return connection;
  }

  /** A WrongServerError (classified) when the server at `address` is known to be another DBMS. */
  private async wrongServer(address: SocketAddress): Promise<Error | undefined> {
    const found = await identifyServer(address);
    if (found.kind === undefined || found.kind === 'PostgreSQL') return undefined;
    return this.classify(new WrongServerError('PostgreSQL', this.where, found));
  }

  /** Which transport carries this connection (drivers/transport). */
  get transportKind(): TransportKind | undefined {
    return this.transport?.kind;
  }

  /** Parse + Describe once; the statement is then executed by name. */
  async prepare(sql: string): Promise<PgPreparedStatement> {
    const name = `h${++this.statementCount}`;
    const w = this.writer;
    w.begin(0x50).cstring(name).cstring(sql).int16(0).end(); // Parse, parameter types inferred
    w.begin(0x44).bytes('S').cstring(name).end(); // Describe statement
    const done = await this.send(Buffer.concat([w.take(), SYNC]), true, [], undefined, sql);
    const head = new MessageWriter();
    head.bytes('\0').cstring(name).int16(0); // unnamed portal, statement, all parameters in text
    return { name, types: done.types, bindHead: head.take(), sql };
  }

  /** Executes a prepared statement for the number of rows it affected (or returned). */
  executeCount(statement: PgPreparedStatement, params: readonly SqlValue[]): Promise<number> {
    const length = this.binds.write(statement.bindHead, params);
    return this.sendBytes(this.binds.buffer, length, COUNT, false, statement.types, undefined, undefined, statement.sql) as Promise<number>;
  }

  /** Executes a prepared statement for its rows. */
  executeRows(statement: PgPreparedStatement, params: readonly SqlValue[]): Promise<Row[]> {
    const length = this.binds.write(statement.bindHead, params);
    return this.sendBytes(this.binds.buffer, length, ROWS, true, statement.types, undefined, undefined, statement.sql) as Promise<Row[]>;
  }

  /** A statement sent as pgJDBC sends a PreparedStatement under prepareThreshold `threshold` (threshold-statement.ts). */
  thresholdStatement(sql: string, threshold: number, types: readonly DeclaredType[] | undefined): PgThresholdStatement {
    return new PgThresholdStatement(`h${++this.statementCount}`, sql, threshold, types);
  }

  /**
   * Executes a threshold statement for its row count, or with `rows` for its rows: once named, one
   * Bind + Execute + Sync built as executeCount() builds it; before, the unnamed or naming write.
   */
  executeAtThreshold(statement: PgThresholdStatement, params: readonly SqlValue[], rows: boolean): Promise<unknown> {
    if (statement.named) {
      const length = this.binds.write(statement.bindHeadNamed, params);
      return this.sendBytes(this.binds.buffer, length, rows ? ROWS : COUNT, rows, statement.types);
    }
    const message = statement.nextUnnamedOrNaming(this.binds, params);
    if (!statement.named) return this.sendBytes(message, message.length, rows ? ROWS : COUNT, rows, NO_TYPES);
    // The naming execution keeps the result's column types (its Describe) for the executions after it.
    return (this.sendBytes(message, message.length, WHOLE, true, NO_TYPES) as Promise<Pending>).then(
      (done) => {
        statement.types = done.types;
        return rows ? done.rows : done.rowCount;
      },
      (error: unknown) => {
        statement.namingFailed();
        throw error;
      },
    );
  }

  /**
   * A statement with its values written in place as literals, sent as one Query message built in a
   * reused buffer: resolves to its row count, or with `rows` to its rows. Undefined when a value
   * holds a NUL byte: the caller sends the text through simpleQuery(), which refuses it.
   */
  executeLiteral(query: PgLiteralQuery, values: readonly LiteralValue[], rows: boolean): Promise<unknown> | undefined {
    const length = query.unframeable ? -1 : this.literals.write(query, values);
    if (length < 0) return undefined;
    const promise = this.sendBytes(this.literals.buffer, length, rows ? ROWS : COUNT, rows, NO_TYPES);
    this.parsing(query, values);
    return promise;
  }

  /** A statement without parameters through the simple protocol (several statements allowed). */
  simpleQuery(sql: string | EncodedQuery): Promise<Pending> {
    if (typeof sql !== 'string') return this.send(sql.message, true, [], undefined, sql.sql);
    // A text sent once (a replayed statement, literals in it): built in the connection's writer and
    // sent from there, not in a 4 KB buffer of its own and a copy per statement.
    return this.writer
      .begin(0x51)
      .cstring(sql)
      .end()
      .sendFrom((buffer, length) => this.send(buffer, true, [], undefined, sql, length));
  }

  /** Several statements in one Query message (pgbench's \\;): each one's result, with its column names. */
  async queryResults(sql: string): Promise<StatementResult[]> {
    const results: StatementResult[] = [];
    const message = encodeQuery(sql).message;
    try {
      const done = this.sendBytes(message, message.length, NOTHING, true, NO_TYPES, undefined, results) as Promise<void>;
      this.parsing(sql);
      await done;
    } catch (error) {
      // The statements before the failing one completed: their count is its number.
      throw Object.assign(error as Error, { statement: results.length });
    }
    return results;
  }

  /** A statement whose answer does not matter (BEGIN, COMMIT): resolves once the server is done with it. */
  command(query: EncodedQuery): Promise<void> {
    return this.sendBytes(query.message, query.message.length, NOTHING, false, NO_TYPES, undefined, undefined, query.sql) as Promise<void>;
  }

  /** A one-off statement with parameters through the unnamed statement and portal. */
  extendedQuery(sql: string, params: readonly SqlValue[]): Promise<Pending> {
    const w = this.writer;
    w.begin(0x50).cstring('').cstring(sql).int16(0).end();
    w.begin(0x42).cstring('').cstring('').int16(0).int16(params.length);
    for (const value of params) w.lengthPrefixed(encodeText(value));
    w.int16(0).end();
    w.begin(0x44).bytes('P').cstring('').end(); // Describe portal: its RowDescription gives the types
    return this.send(Buffer.concat([w.take(), EXECUTE_SYNC]), true, [], undefined, sql);
  }

  /**
   * A statement without parameters through the unnamed statement and portal, as pgJDBC sends a
   * plain Statement: Parse, Bind, Describe portal, Execute, Sync in one write, so the server parses
   * and plans it at every call. `withBegin`: BEGIN goes ahead of it in the same write as its own
   * unnamed Parse, Bind and Execute with no Sync between, as pgJDBC opens a transaction with
   * autocommit off (one round trip, one ReadyForQuery for both).
   */
  unnamedQuery(sql: string, withBegin: boolean): Promise<Row[]> {
    const w = this.writer;
    if (withBegin) w.bytes(UNNAMED_BEGIN);
    const message = w.begin(0x50).cstring('').cstring(sql).int16(0).end().bytes(UNNAMED_BIND_DESCRIBE_EXECUTE_SYNC).take(); // Parse: no parameters
    const rows = this.sendBytes(message, message.length, ROWS, true, NO_TYPES) as Promise<Row[]>;
    this.parsing(sql);
    return rows;
  }

  /**
   * A statement without parameters kept under a name from its first execution on, as pgJDBC keeps
   * COMMIT: the first call sends Parse with its Bind, Execute and Sync (one round trip), later
   * calls Bind, Execute and Sync. After a failed first call the server may or may not hold the
   * name, so the next call closes it first (closing an unknown name is no error).
   */
  namedCommand(sql: string): () => Promise<void> {
    const name = `h${++this.statementCount}`;
    const w = this.writer;
    w.begin(0x43).bytes('S').cstring(name).end(); // Close statement
    const close = w.take();
    w.begin(0x50).cstring(name).cstring(sql).int16(0).end();
    const parse = w.take();
    w.begin(0x42).cstring('').cstring(name).int16(0).int16(0).int16(0).end(); // Bind: no parameters, results in text
    const execute = Buffer.concat([w.take(), EXECUTE_SYNC]);
    let first: Buffer | undefined = Buffer.concat([parse, execute]);
    const again = Buffer.concat([close, parse, execute]);
    return () => {
      if (first === undefined) return this.sendBytes(execute, execute.length, NOTHING, false, NO_TYPES) as Promise<void>;
      const message = first;
      first = undefined;
      return (this.sendBytes(message, message.length, NOTHING, false, NO_TYPES) as Promise<void>).catch((error: unknown) => {
        first = again;
        throw error;
      });
    };
  }

  /** COPY ... FROM STDIN: streams text-format chunks, honouring the transport's back-pressure. */
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
        if (!this.transport!.write(message, 0, message.length)) await this.transport!.drained();
      }
    } catch (error) {
      // The rows' source failed: CopyFail makes the server roll the COPY back and leaves the
      // connection usable; its answer (an error) is expected, the source's error is the one to tell.
      const fail = this.writer
        .begin(0x66)
        .cstring(`the rows to copy failed: ${(error as Error).message}`)
        .end()
        .take();
      this.transport!.write(fail, 0, fail.length);
      await done.catch(() => undefined);
      throw error;
    }
    this.transport!.write(COPY_DONE, 0, COPY_DONE.length);
    return (await done).rowCount;
  }

  async close(): Promise<void> {
    if (this.closedBy) return;
    this.closedBy = new PgConnectionError('connection closed by the client', undefined);
    this.transport?.close(TERMINATE);
  }

  /** The statement the oldest request waits on the server for (Connection.pendingRequest); '' where it keeps no text. */
  pendingRequest(): string | undefined {
    const pending = this.queue[0];
    return pending === undefined ? undefined : (pending.sql ?? '');
  }

  /** TransportHandler: bytes from the server. */
  onData(buffer: Buffer, start: number, end: number): void {
    if (this.answering !== undefined) return this.answered(buffer, start, end);
    this.framer.push(buffer, start, end);
  }

  /** The server's answer to SSLRequest, 'S' or 'N' (tls-negotiation.ts). */
  sslAnswer(timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.answering = undefined;
        reject(new PgConnectionError(`timeout expired while connecting to ${this.where}`, 'ETIMEDOUT'));
      }, timeoutMs);
      this.answering = { resolve, reject, timer };
    });
  }

  private answered(buffer: Buffer, start: number, end: number): void {
    const { resolve, reject, timer } = this.answering!;
    this.answering = undefined;
    clearTimeout(timer);
    // Bytes behind the 'S' would pass for the encrypted server's own (CVE-2021-23222): refuse them.
    if (end - start > 1 && buffer[start] === 0x53)
      reject(new TlsError('the server sent more than its answer to the TLS request', 'TLS_PROTOCOL', 'is something between the client and the server?'));
    else resolve(buffer[start]!);
  }

  /** TransportHandler: the server closed the connection, or the socket failed. */
  onClose(error: TransportError | undefined): void {
    if (this.answering !== undefined) {
      const { reject, timer } = this.answering;
      this.answering = undefined;
      clearTimeout(timer);
      reject(new PgConnectionError(`${error?.message ?? 'the server closed the connection when asked for TLS'} (${this.where})`, error?.code));
    }
    const during = this.authenticate ? ' during startup' : '';
    this.fail(
      error
        ? new PgConnectionError(`${error.message} from ${this.where}${during}`, error.code)
        : new PgConnectionError(`connection terminated unexpectedly: the server at ${this.where} closed it${during}`, undefined),
    );
  }

  /** A request answered with its whole record (rows, count and types); `wantRows` false only counts rows. */
  private send(message: Buffer, wantRows: boolean, types: number[] = [], onCopyIn?: () => void, sql?: string, length = message.length): Promise<Pending> {
    const promise = this.sendBytes(message, length, WHOLE, wantRows, types, onCopyIn, undefined, sql) as Promise<Pending>;
    this.parsing(sql);
    return promise;
  }

  /** Tells the request just queued what text it has the server parse (Pending.parsed). */
  private parsing(text: string | PgLiteralQuery | undefined, values?: readonly LiteralValue[]): void {
    // A connection already closed queued nothing.
    const pending = this.closedBy === undefined ? this.queue[this.queue.length - 1] : undefined;
    if (pending === undefined) return;
    pending.parsed = text;
    pending.values = values;
  }

  private sendBytes(
    message: Buffer,
    length: number,
    answer: Answer,
    wantRows: boolean,
    types: number[],
    onCopyIn?: () => void,
    results?: StatementResult[],
    sql?: string,
  ): Promise<unknown> {
    if (this.closedBy) return Promise.reject(this.classify(this.closedBy));
    const pending: Pending = {
      answer,
      wantRows,
      types,
      rows: NO_ROWS,
      rowCount: 0,
      error: undefined,
      sql,
      parsed: undefined,
      values: undefined,
      resolve: unset,
      reject: unset,
      onCopyIn,
      results,
    };
    this.capturing = pending;
    const promise = new Promise(this.capture);
    this.queue.push(pending);
    this.transport!.write(message, 0, length);
    return promise;
  }

  /** One executor for every request's promise: it hands the settle functions to `capturing`. */
  private capturing: Pending | undefined;
  private readonly capture = (resolve: (value: unknown) => void, reject: (error: Error) => void): void => {
    this.capturing!.resolve = resolve;
    this.capturing!.reject = reject;
  };

  private fail(error: Error): void {
    if (this.closedBy === undefined) this.closedBy = error;
    for (const pending of this.queue.splice(0)) pending.reject(this.classify(pending.error ?? this.closedBy));
  }

  /** Set while connecting; answers the server's Authentication requests. */
  private authenticate: ((kind: number, body: Buffer, start: number, end: number) => void) | undefined;

  private authenticator(options: WireOptions): (kind: number, body: Buffer, start: number, end: number) => void {
    let scram: ScramSession | undefined;
    const binding = options.tls?.settings.channelBinding ?? 'prefer';
    const password = (): string => {
      if (options.password === undefined) throw new PgServerError('the server asks for a password and none was given', '28P01', 'FATAL', undefined, undefined);
      return options.password;
    };
    const reply = (message: Buffer): void => void this.transport!.write(message, 0, message.length);
    return (kind, body, start, end) => {
      const w = this.writer;
      switch (kind) {
        case 0: // AuthenticationOk
          if (binding === 'require' && this.authentication !== 'SCRAM-SHA-256-PLUS') {
            throw new TlsError(
              `channel_binding=require, but the server logged the client in with ${this.authentication}, without channel binding`,
              'TLS_CHANNEL_BINDING',
              'use SCRAM passwords over TLS (hostssl ... scram-sha-256), or channel_binding=prefer',
            );
          }
          return;
        case 3: // cleartext
          this.authentication = 'password';
          return reply(w.begin(0x70).cstring(password()).end().take());
        case 5: // MD5 with a 4-byte salt
          this.authentication = 'md5';
          return reply(
            w
              .begin(0x70)
              .cstring(md5Answer(options.user, password(), body.subarray(start, start + 4)))
              .end()
              .take(),
          );
        case 10: {
          // SASL: the mechanisms offered, NUL-separated
          const offered = body.toString('utf8', start, end).split('\0');
          const certificate = this.tls?.peerCertificate;
          const plus = certificate !== undefined && binding !== 'disable' && offered.includes('SCRAM-SHA-256-PLUS');
          if (binding === 'require' && !plus) {
            throw new TlsError(
              this.tls
                ? 'channel_binding=require, but the server does not offer SCRAM-SHA-256-PLUS'
                : 'channel_binding=require, but the connection does not use TLS',
              'TLS_CHANNEL_BINDING',
              'use sslmode=require or stronger against a server with TLS and SCRAM passwords, or channel_binding=prefer',
            );
          }
          if (!plus && !offered.includes('SCRAM-SHA-256')) throw new Error('the server offers no SASL mechanism headroom speaks');
          this.authentication = plus ? 'SCRAM-SHA-256-PLUS' : 'SCRAM-SHA-256';
          scram = plus
            ? new ScramSession(password(), serverEndPoint(certificate))
            : new ScramSession(password(), undefined, certificate !== undefined && binding !== 'disable');
          const first = Buffer.from(scram.clientFirst());
          return reply(w.begin(0x70).cstring(this.authentication).int32(first.length).bytes(first).end().take());
        }
        case 11: // SASLContinue
          return reply(
            w
              .begin(0x70)
              .bytes(scram!.clientFinal(body.toString('utf8', start, end)))
              .end()
              .take(),
          );
        case 12: // SASLFinal
          scram!.verifyServerFinal(body.toString('utf8', start, end));
          return;
        default:
          throw new Error(`unsupported authentication request ${kind}`);
      }
    };
  }

  /** Handles the whole messages in [start, end); returns where an incomplete one begins. */
  private parse(data: Buffer, start: number, end: number): number {
    if (this.awaitingFirstByte && start < end) {
      this.awaitingFirstByte = false;
      // A startup is answered with Authentication (R), ErrorResponse (E), NegotiateProtocolVersion (v) or a notice (N).
      const first = data[start]!;
      if (first !== 0x52 && first !== 0x45 && first !== 0x76 && first !== 0x4e) {
        return this.broken(new WrongServerError('PostgreSQL', this.where, describeGreeting(data, start, end)), end);
      }
    }
    try {
      return scanMessages(data, start, end, this);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // A corrupt message (MalformedMessage, or a read past a buffer's end) is the server's fault; other errors are the client's own refusals.
      return this.broken(
        error instanceof RangeError ? new PgConnectionError(`malformed message from ${this.where}: ${reason}`, 'EPROTO') : (error as Error),
        end,
      );
    }
  }

  /** The stream cannot be read on: close it and fail every request with `error`. */
  private broken(error: Error, end: number): number {
    this.transport?.close();
    this.fail(error);
    return end;
  }

  /** MessageSink: one whole message from the server (messages.ts reads its fields). */
  message(type: number, data: Buffer, start: number, end: number): void {
    const pending = this.queue[0];
    switch (type) {
      case 0x44: {
        // DataRow
        if (!pending) return;
        pending.rowCount++;
        if (!pending.wantRows) return;
        const row = readDataRow(pending.types, data, start, end);
        if (pending.rows === NO_ROWS) pending.rows = [];
        pending.rows.push(row);
        return;
      }
      case 0x43: {
        // CommandComplete: the tag's last word is the row count ("UPDATE 1", "INSERT 0 1", "COPY 5")
        if (!pending) return;
        const count = commandCompleteCount(data, start, end);
        if (count >= 0) pending.rowCount = count;
        if (pending.results) {
          pending.results.push({ columns: pending.columns, rows: pending.rows === NO_ROWS ? [] : pending.rows });
          pending.columns = undefined;
          pending.rows = NO_ROWS;
        }
        return;
      }
      case 0x5a: // ReadyForQuery
        if (!pending) return;
        this.queue.shift();
        // The server's error names the statement it refused (DbError.sql); only here, on the error path.
        if (pending.error) pending.reject(this.classify(failure(pending, pending.error)));
        else {
          // The shared empty array never leaves this client: a caller may push to its rows.
          const { answer } = pending;
          if ((answer === WHOLE || answer === ROWS) && pending.rows === NO_ROWS) pending.rows = [];
          pending.resolve(answer === COUNT ? pending.rowCount : answer === ROWS ? pending.rows : answer === WHOLE ? pending : undefined);
        }
        return;
      case 0x54: {
        // RowDescription: keep each column's type OID
        if (!pending) return;
        // Rows only counted: neither their types nor their names are read.
        if (!pending.wantRows && !pending.results) return;
        const names: string[] | undefined = pending.results ? [] : undefined;
        const types = readRowDescription(data, start, end, names);
        pending.types = types;
        pending.rows = NO_ROWS;
        if (names) pending.columns = names;
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
        this.authenticate?.(readAuthenticationKind(data, start, end), data, start + 4, end);
        return;
      case 0x53: {
        // ParameterStatus
        const [name, value] = readParameterStatus(data, start, end);
        this.parameters.set(name, value);
        return;
      }
      case 0x4b: // BackendKeyData
        this.processId = readBackendProcessId(data, start, end);
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

/**
 * A request's error with what the connection knows of the request: the text the server parsed
 * (PgServerError.query, for its position) and the statement's name for DbError.sql. Only on the
 * error path: a literal query's text is built here.
 */
function failure(pending: Pending, error: Error): Error {
  if (error instanceof PgServerError && error.position !== undefined && pending.parsed !== undefined) {
    const { parsed, values } = pending;
    error.query =
      typeof parsed === 'string'
        ? parsed
        : literalText(
            parsed.pieces.map((piece) => piece.toString('utf8')),
            values ?? [],
          );
  }
  return pending.sql === undefined ? error : Object.assign(error, { sql: pending.sql });
}

const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]); // CopyDone
