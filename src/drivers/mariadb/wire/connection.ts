import type { Row, SqlValue } from '../../driver.js';
import { connectTransport } from '../../transport/connect.js';
import { Framer } from '../../transport/framer.js';
import {
  describeAddress,
  type SocketAddress,
  type Transport,
  type TransportError,
  type TransportHandler,
  type TransportKind,
} from '../../transport/transport.js';
import { describeGreeting, identifyServer, WrongServerError } from '../../probe.js';
import { connectTlsCapable, type TlsUpgradable } from '../../transport/tls-transport.js';
import { TlsError, type TlsContext, type TlsSession } from '../../transport/tls.js';
import { authAnswer, rsaEncryptedPassword } from './auth.js';
import { MariadbConnectionError, MariadbServerError } from './errors.js';
import { readHandshake } from './handshake.js';
import { PacketReader, PacketWriter } from './packets.js';
import {
  CAPS,
  COM_QUERY,
  COM_QUIT,
  COM_STMT_EXECUTE,
  COM_STMT_PREPARE,
  MARIADB_CACHE_METADATA,
  MAX_PACKET_PAYLOAD,
  STATUS_MORE_RESULTS,
  STATUS_NO_BACKSLASH_ESCAPES,
  UTF8MB4_GENERAL_CI,
  type Column,
} from './protocol.js';
import { checkWithin, readColumn, readEofStatus, readError, readOk, scanPackets, type OkFields, type PacketSink } from './responses.js';
import { inlineParameters, literal, readBinaryRow, readTextRow, writeParams } from './values.js';

export interface MariadbWireOptions {
  host: string;
  port: number;
  user: string;
  password: string | undefined;
  database: string;
  connectTimeoutMs: number;
  /** TLS as the ssl options ask (drivers/mariadb/tls-options.ts); absent: none. */
  tls?: TlsContext;
  /** The server's RSA public key (PEM), for caching_sha2_password's full authentication without TLS. */
  serverPublicKey?: string;
  /** Turns every error a request fails with into the driver's own, as for PostgreSQL's client. */
  classify?: (error: Error) => Error;
}

/** A statement prepared on the server: executed by id with binary parameters and rows. */
export interface MariadbPreparedStatement {
  id: number;
  params: number;
  /** The result columns, kept so that executions can skip the metadata (MariaDB 10.6+). */
  columns: Column[];
  /** Its text, for the errors of its executions (DbError.sql). */
  sql: string;
}

const COUNT = 0;
const ROWS = 1;
const NOTHING = 2;
const PREPARED = 3;
type Answer = typeof COUNT | typeof ROWS | typeof NOTHING | typeof PREPARED;

/** Where a request's response stands (one packet at a time). */
const START = 0;
const COLUMNS = 1;
const COLUMNS_EOF = 2;
const RESULT_ROWS = 3;
const PREPARE_PARAMS = 4;
const PREPARE_PARAMS_EOF = 5;
const PREPARE_COLUMNS = 6;
const PREPARE_COLUMNS_EOF = 7;

interface Request {
  answer: Answer;
  binary: boolean;
  statement: MariadbPreparedStatement | undefined;
  /** A text request's statement (COM_QUERY, COM_STMT_PREPARE), for pendingRequest(); executions name theirs through `statement`. */
  sql: string | undefined;
  phase: number;
  columns: Column[];
  columnsLeft: number;
  /** Rows are kept from the first result set only (a CALL's later ones are its own business). */
  resultSets: number;
  rows: Row[];
  rowCount: number;
  paramsLeft: number;
  error: Error | undefined;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

const NO_ROWS: Row[] = [];
const NO_COLUMNS: Column[] = [];
/** How long a connection may wait for the server's greeting before the client asks what listens there (probe.ts). */
const SILENCE_BEFORE_PROBE_MS = 1000;
/** A greeting (or a refusal in an ERR packet) is a few hundred bytes; a first "packet" longer than this is another protocol. */
const MAX_GREETING = 1 << 16;
const unset = (): void => {};
const CLIENT_CAPS =
  CAPS.FOUND_ROWS |
  CAPS.LONG_FLAG |
  CAPS.PROTOCOL_41 |
  CAPS.TRANSACTIONS |
  CAPS.SECURE_CONNECTION |
  CAPS.MULTI_RESULTS |
  CAPS.PS_MULTI_RESULTS |
  CAPS.PLUGIN_AUTH |
  CAPS.PLUGIN_AUTH_LENENC_CLIENT_DATA |
  CAPS.DEPRECATE_EOF;

/**
 * A client for MariaDB's (and MySQL's) client/server protocol, written for a benchmark's hot loop
 * as the PostgreSQL one is: an execution of a prepared statement is one packet built in a reused
 * buffer (binary parameters, integers without a bigint), answers are parsed where the transport
 * put them, rows decoded only when asked for, and on MariaDB 10.6+ executions come back without
 * their column metadata (MARIADB_CLIENT_CACHE_METADATA). FOUND_ROWS is on, as the mariadb
 * connector had it: an UPDATE counts the rows it matched.
 */
export class MariadbWire implements TransportHandler, PacketSink {
  threadId = 0;
  serverVersion = '';
  /** The TLS session when the connection is encrypted. */
  tls: TlsSession | undefined;
  private readonly queue: Request[] = [];
  private readonly framer = new Framer((data, start, end) => this.parse(data, start, end));
  private readonly reader = new PacketReader();
  /** The last OK packet's fields (responses.ts fills them in place). */
  private readonly ok: OkFields = { affectedRows: 0, lastInsertId: 0, status: 0 };
  private readonly writer = new PacketWriter();
  private transport: Transport | undefined;
  private closedBy: Error | undefined;
  private deprecateEof = false;
  private cacheMetadata = false;
  private noBackslashEscapes = false;
  /** Parts of a packet of 16 MiB or more, until its last part arrives. */
  private longPacket: Buffer[] | undefined;
  /** Set while connecting: handles the handshake's packets. */
  private handshake: ((data: Buffer, start: number, end: number, sequence: number) => void) | undefined;
  /** Until the greeting's first bytes: they must look like MariaDB's. */
  private awaitingGreeting = true;
  /** The server's address as errors name it (host:port, or the socket file). */
  private where = '';

  private constructor(private readonly classify: (error: Error) => Error) {}

  static async connect(options: MariadbWireOptions): Promise<MariadbWire> {
    const wire = new MariadbWire(options.classify ?? ((error) => error));
    const address: SocketAddress = options.host.startsWith('/') ? { path: options.host } : { host: options.host, port: options.port };
    wire.where = describeAddress(address);
    const startedMs = Date.now();
    let ready!: () => void;
    let refused!: (error: Error) => void;
    const done = new Promise<void>((resolve, reject) => ((ready = resolve), (refused = reject)));
    const mode = options.tls?.settings.mode ?? 'disable';
    if ('path' in address && (mode === 'verify-ca' || mode === 'verify-full')) {
      throw new TlsError(
        `${options.tls!.settings.modeSource} asks to verify the server's certificate, but the Unix-domain socket ${address.path} carries no TLS`,
        'TLS_UNIX_SOCKET',
        'connect over TCP (host=127.0.0.1), or use ?ssl=true',
      );
    }
    // TLS starts after the server's greeting, on the native reactor where it can run TLS, else on a
    // Node socket (connectTlsCapable). A Unix-domain socket never leaves the machine, so there it is
    // not used (as MySQL's clients do).
    const tls = mode !== 'disable' && !('path' in address) ? options.tls : undefined;
    wire.handshake = wire.handshaker(options, tls, ready, refused);
    try {
      const timeoutMs = options.connectTimeoutMs;
      wire.transport = tls ? await connectTlsCapable(address, wire, timeoutMs, tls) : await connectTransport(address, wire, timeoutMs);
    } catch (error) {
      throw new MariadbConnectionError((error as Error).message, (error as TransportError).code);
    }
    const remainingMs = (): number => Math.max(1, options.connectTimeoutMs - (Date.now() - startedMs));
    let timer: NodeJS.Timeout | undefined;
    let probeTimer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new MariadbConnectionError(`timeout expired while connecting to ${wire.where}`, 'ETIMEDOUT')), remainingMs());
      // MariaDB greets at once; a silent server may be one that waits for the client (PostgreSQL, Firebird).
      probeTimer = setTimeout(
        () => {
          if (wire.awaitingGreeting) void wire.wrongServer(address).then((error) => error && reject(error));
        },
        Math.min(SILENCE_BEFORE_PROBE_MS, remainingMs() / 2),
      );
    });
    try {
      await Promise.race([done, timeout]);
    } catch (error) {
      wire.handshake = undefined;
      wire.transport.close();
      // Closed, reset or timed out before a greeting: say what listens there if it is another DBMS.
      if (wire.awaitingGreeting && !(error instanceof WrongServerError)) throw (await wire.wrongServer(address)) ?? error;
      throw error;
    } finally {
      clearTimeout(timer);
      clearTimeout(probeTimer);
    }
    wire.handshake = undefined;
    return wire;
  }

  /** A WrongServerError (classified) when the server at `address` is known to be another DBMS. */
  private async wrongServer(address: SocketAddress): Promise<Error | undefined> {
    const found = await identifyServer(address);
    if (found.kind === undefined || found.kind === 'MariaDB' || found.kind === 'MySQL') return undefined;
    return this.classify(new WrongServerError('MariaDB', this.where, found));
  }

  /** Which transport carries this connection (drivers/transport). */
  get transportKind(): TransportKind | undefined {
    return this.transport?.kind;
  }

  /** COM_QUERY: the text protocol; `params` are put in place of `?` as literals. */
  query(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    let text = sql;
    try {
      if (params.length > 0) text = inlineParameters(sql, params, this.noBackslashEscapes);
    } catch (error) {
      // Placeholders and parameters that do not match, or a value SQL cannot spell (Infinity).
      return Promise.reject(this.classify(new MariadbServerError((error as Error).message, 1210, 'HY000')));
    }
    const w = this.writer.begin().u8(COM_QUERY).text(text);
    return this.send(w.finish(), ROWS, false, undefined, sql) as Promise<Row[]>;
  }

  /** COM_QUERY for a statement whose answer does not matter (BEGIN, COMMIT). */
  command(sql: string): Promise<void> {
    const w = this.writer.begin().u8(COM_QUERY).text(sql);
    return this.send(w.finish(), NOTHING, false, undefined, sql) as Promise<void>;
  }

  /** A value as an SQL literal, escaped as the server reads strings right now. */
  literal(value: SqlValue | undefined): string {
    return literal(value, this.noBackslashEscapes);
  }

  async prepare(sql: string): Promise<MariadbPreparedStatement> {
    const w = this.writer.begin().u8(COM_STMT_PREPARE).text(sql);
    const statement = (await this.send(w.finish(), PREPARED, false, undefined, sql)) as MariadbPreparedStatement;
    statement.sql = sql;
    return statement;
  }

  /** COM_STMT_EXECUTE for the number of rows affected (matched) or returned. */
  executeCount(statement: MariadbPreparedStatement, params: readonly SqlValue[]): Promise<number> {
    return this.execute(statement, params, COUNT) as Promise<number>;
  }

  executeRows(statement: MariadbPreparedStatement, params: readonly SqlValue[]): Promise<Row[]> {
    return this.execute(statement, params, ROWS) as Promise<Row[]>;
  }

  async close(): Promise<void> {
    if (this.closedBy) return;
    this.closedBy = new MariadbConnectionError('connection closed by the client', undefined);
    const w = this.writer.begin().u8(COM_QUIT);
    const length = w.finish();
    this.transport?.close(Buffer.from(w.buffer.subarray(0, length)));
  }

  /** The statement the oldest request waits on the server for (Connection.pendingRequest). */
  pendingRequest(): string | undefined {
    const request = this.queue[0];
    return request === undefined ? undefined : (request.statement?.sql ?? request.sql ?? '');
  }

  /** TransportHandler: bytes from the server. */
  onData(buffer: Buffer, start: number, end: number): void {
    this.framer.push(buffer, start, end);
  }

  /** TransportHandler: the server closed the connection, or the socket failed. */
  onClose(error: TransportError | undefined): void {
    const during = this.handshake ? ' during the handshake' : '';
    this.fail(
      error
        ? new MariadbConnectionError(`${error.message} from ${this.where}${during}`, error.code)
        : new MariadbConnectionError(`connection closed by the server at ${this.where}${during}`, 'ECONNRESET'),
    );
  }

  private execute(statement: MariadbPreparedStatement, params: readonly SqlValue[], answer: Answer): Promise<unknown> {
    if (params.length !== statement.params) {
      return Promise.reject(
        this.classify(new MariadbServerError(`the statement takes ${statement.params} parameter(s), ${params.length} given`, 1210, 'HY000')),
      );
    }
    const w = this.writer.begin().u8(COM_STMT_EXECUTE).u32(statement.id).u8(0).u32(1);
    if (params.length > 0) writeParams(w, params);
    return this.send(w.finish(), answer, true, statement);
  }

  private send(length: number, answer: Answer, binary: boolean, statement: MariadbPreparedStatement | undefined, sql?: string): Promise<unknown> {
    if (this.closedBy) return Promise.reject(this.classify(this.closedBy));
    const request: Request = {
      answer,
      binary,
      statement,
      sql,
      phase: START,
      columns: NO_COLUMNS,
      columnsLeft: 0,
      resultSets: 0,
      rows: NO_ROWS,
      rowCount: 0,
      paramsLeft: 0,
      error: undefined,
      resolve: unset,
      reject: unset,
    };
    this.capturing = request;
    const promise = new Promise(this.capture);
    this.queue.push(request);
    this.transport!.write(this.writer.buffer, 0, length);
    return promise;
  }

  /** One executor for every request's promise: it hands the settle functions to `capturing`. */
  private capturing: Request | undefined;
  private readonly capture = (resolve: (value: unknown) => void, reject: (error: Error) => void): void => {
    this.capturing!.resolve = resolve;
    this.capturing!.reject = reject;
  };

  private fail(error: Error): void {
    if (this.closedBy === undefined) this.closedBy = error;
    for (const request of this.queue.splice(0)) request.reject(this.classify(request.error ?? this.closedBy));
    this.handshake?.(Buffer.alloc(0), 0, 0, -1);
  }

  /** Splits the bytes into packets; returns where an incomplete one begins. */
  private parse(data: Buffer, start: number, end: number): number {
    if (this.awaitingGreeting && end - start >= 5) {
      this.awaitingGreeting = false;
      // HandshakeV10 (protocol 10) or an ERR packet (a refusal), as the first packet (sequence 0).
      const length = data[start]! | (data[start + 1]! << 8) | (data[start + 2]! << 16);
      if (data[start + 3] !== 0 || (data[start + 4] !== 0x0a && data[start + 4] !== 0xff) || length > MAX_GREETING) {
        return this.broken(new WrongServerError('MariaDB', this.where, describeGreeting(data, start, end)), end);
      }
    }
    try {
      return scanPackets(data, start, end, this);
    } catch (error) {
      // A corrupt packet (MalformedPacket, or a read past a buffer's end) is the server's fault; other errors are the client's own refusals.
      const reason = error instanceof Error ? error.message : String(error);
      return this.broken(
        error instanceof RangeError ? new MariadbConnectionError(`malformed packet from ${this.where}: ${reason}`, 'EPROTO') : (error as Error),
        end,
      );
    }
  }

  /** The stream cannot be read on: close it and fail every request (and a handshake under way) with `error`. */
  private broken(error: Error, end: number): number {
    this.transport?.close();
    this.fail(error);
    return end;
  }

  /** PacketSink: one whole packet from the server. */
  packet(data: Buffer, start: number, end: number, sequence: number, length: number): void {
    if (length === MAX_PACKET_PAYLOAD || this.longPacket) {
      // A payload of 16 MiB or more comes in full-size parts and a shorter last one.
      (this.longPacket ??= []).push(Buffer.from(data.subarray(start, end)));
      if (length === MAX_PACKET_PAYLOAD) return;
      const whole = Buffer.concat(this.longPacket);
      this.longPacket = undefined;
      return this.dispatch(whole, 0, whole.length, sequence, whole.length);
    }
    this.dispatch(data, start, end, sequence, length);
  }

  /** One whole packet (`length` its payload's, MAX_PACKET_PAYLOAD or more for a joined one). */
  private dispatch(data: Buffer, start: number, end: number, sequence: number, length: number): void {
    if (this.handshake) return this.handshake(data, start, end, sequence);
    const request = this.queue[0];
    if (request === undefined) return; // nothing asked: a late answer to a request already failed
    const r = this.reader.reset(data, start, end);
    const first = data[start]!;
    switch (request.phase) {
      case START:
        return this.resultStart(request, r, first);
      case COLUMNS:
        request.columns[request.columns.length - request.columnsLeft] = readColumn(r);
        if (--request.columnsLeft === 0) {
          if (request.statement && request.binary) request.statement.columns = request.columns;
          request.phase = this.deprecateEof ? RESULT_ROWS : COLUMNS_EOF;
        }
        return;
      case COLUMNS_EOF:
        request.phase = RESULT_ROWS;
        return;
      case RESULT_ROWS:
        return this.resultRow(request, r, first, length);
      case PREPARE_PARAMS:
        if (--request.paramsLeft === 0) request.phase = this.deprecateEof ? this.afterParams(request) : PREPARE_PARAMS_EOF;
        return;
      case PREPARE_PARAMS_EOF:
        request.phase = this.afterParams(request);
        return;
      case PREPARE_COLUMNS:
        request.statement!.columns.push(readColumn(r));
        if (--request.columnsLeft === 0) {
          if (this.deprecateEof) this.finish(request, request.statement);
          else request.phase = PREPARE_COLUMNS_EOF;
        }
        return;
      case PREPARE_COLUMNS_EOF:
        this.finish(request, request.statement);
        return;
    }
  }

  /** The first packet of an answer: OK, ERR, or the column count of a result set. */
  private resultStart(request: Request, r: PacketReader, first: number): void {
    if (first === 0xff) return this.finish(request, undefined, readError(r));
    if (request.answer === PREPARED && first === 0x00) {
      r.at++;
      const id = r.u32();
      const columns = r.u16();
      const params = r.u16();
      checkWithin(r, 'a prepare OK packet');
      request.statement = { id, params, columns: [], sql: '' };
      request.columnsLeft = columns;
      request.paramsLeft = params;
      if (params > 0) request.phase = PREPARE_PARAMS;
      else request.phase = this.afterParams(request);
      return;
    }
    if (first === 0x00) {
      // OK: affected rows, last insert id, status.
      const affected = readOk(r, this.ok).affectedRows;
      this.status(this.ok.status);
      if (request.resultSets === 0) request.rowCount = affected;
      if (this.moreResults) return; // a CALL's last OK follows its result sets
      return this.finish(request, request.answer === COUNT ? request.rowCount : undefined);
    }
    const count = r.lenenc() ?? 0;
    request.resultSets++;
    if (request.binary && this.cacheMetadata && r.u8() === 0 && request.statement) {
      // MariaDB kept the metadata of the prepare: no column definitions follow.
      request.columns = request.statement.columns;
      request.phase = RESULT_ROWS;
      return;
    }
    request.columns = new Array(count);
    request.columnsLeft = count;
    request.phase = count === 0 ? RESULT_ROWS : COLUMNS;
  }

  private resultRow(request: Request, r: PacketReader, first: number, length: number): void {
    // 0xfe starts the end of a result set (EOF, or OK with DEPRECATE_EOF); a text row can start
    // with it only as a value of 16 MiB or more, whose packet is longer than any terminator.
    if (first === 0xfe && (request.binary || length < 0xffffff)) {
      this.status(this.deprecateEof ? readOk(r, this.ok).status : readEofStatus(r));
      if (this.moreResults) {
        request.phase = START;
        return;
      }
      return this.finish(request, request.answer === COUNT ? request.rowCount : undefined);
    }
    if (first === 0xff) return this.finish(request, undefined, readError(r));
    request.rowCount++;
    if (request.answer !== ROWS || request.resultSets > 1) return;
    if (request.rows === NO_ROWS) request.rows = [];
    if (request.binary) {
      r.at++;
      request.rows.push(readBinaryRow(r, request.columns));
    } else request.rows.push(readTextRow(r, request.columns));
  }

  private afterParams(request: Request): number {
    if (request.columnsLeft > 0) return PREPARE_COLUMNS;
    this.finish(request, request.statement);
    return START;
  }

  private moreResults = false;

  private status(flags: number): void {
    this.moreResults = (flags & STATUS_MORE_RESULTS) !== 0;
    this.noBackslashEscapes = (flags & STATUS_NO_BACKSLASH_ESCAPES) !== 0;
  }

  private finish(request: Request, value: unknown, error?: Error): void {
    this.queue.shift();
    this.moreResults = false;
    // An execution's error names its statement (DbError.sql); only here, on the error path.
    if (error)
      return request.reject(this.classify(request.answer === PREPARED || !request.statement ? error : Object.assign(error, { sql: request.statement.sql })));
    if (request.answer === ROWS) request.resolve(request.rows === NO_ROWS ? [] : request.rows);
    else request.resolve(value);
  }

  private handshaker(
    options: MariadbWireOptions,
    tls: TlsContext | undefined,
    ready: () => void,
    refused: (error: Error) => void,
  ): (data: Buffer, start: number, end: number, sequence: number) => void {
    const password = options.password ?? '';
    let scramble: Buffer = Buffer.alloc(0);
    let awaitingPublicKey = false;
    const where = this.where;
    const reply = (sequence: number, fill: (w: PacketWriter) => void): void => {
      const w = this.writer.begin(sequence);
      fill(w);
      this.transport!.write(w.buffer, 0, w.finish());
    };
    const fail = (error: Error): void => {
      this.handshake = undefined;
      this.closedBy ??= error;
      refused(error);
    };
    return (data, start, end, sequence) => {
      if (sequence < 0) return fail(this.closedBy ?? new MariadbConnectionError('connection closed during the handshake', 'ECONNRESET'));
      const r = this.reader.reset(data, start, end);
      const first = data[start]!;
      if (first === 0xff) return fail(readError(r, true));
      if (sequence === 0) {
        // Initial handshake (Protocol::HandshakeV10); a cut or corrupt one throws MalformedPacket, which parse() reports.
        const greeting = readHandshake(data, start, end);
        this.serverVersion = greeting.serverVersion;
        this.threadId = greeting.threadId;
        this.status(greeting.status);
        scramble = greeting.scramble;
        const serverCaps = greeting.capabilities;
        const extendedCaps = greeting.extendedCapabilities;
        const plugin = greeting.authPlugin;
        if ((serverCaps & CAPS.PROTOCOL_41) === 0)
          return fail(new MariadbServerError('the server speaks a protocol older than 4.1, which headroom does not', 2027, 'HY000', true));
        this.deprecateEof = (serverCaps & CAPS.DEPRECATE_EOF) !== 0;
        this.cacheMetadata = (extendedCaps & MARIADB_CACHE_METADATA) !== 0;
        const encrypt = tls !== undefined && (serverCaps & CAPS.SSL) !== 0;
        const caps = (CLIENT_CAPS & (serverCaps | CAPS.PLUGIN_AUTH)) | (options.database ? CAPS.CONNECT_WITH_DB : 0) | (encrypt ? CAPS.SSL : 0);
        const answer = authAnswer(plugin, password, scramble) ?? Buffer.alloc(0);
        // The handshake response's head; alone, it is the SSL request (Protocol::SSLRequest).
        const head = (w: PacketWriter): PacketWriter => {
          w.u32(caps).u32(MAX_PACKET_PAYLOAD).u8(UTF8MB4_GENERAL_CI).zeros(19);
          // MariaDB reads its extended capabilities from the filler's last four bytes.
          return w.u32(this.cacheMetadata ? MARIADB_CACHE_METADATA : 0);
        };
        const respond = (at: number): void =>
          reply(at, (w) => {
            head(w).cstring(options.user).lenencBytes(answer);
            if (options.database) w.cstring(options.database);
            w.cstring(plugin);
          });
        if (tls && !encrypt) {
          if (tls.settings.mode === 'prefer') return respond(sequence + 1);
          return fail(
            new TlsError(
              `the server at ${where} does not support TLS, but ${tls.settings.modeSource} asks for it`,
              'TLS_UNSUPPORTED',
              'give the server ssl_cert and ssl_key in its configuration, or drop the ssl options',
            ),
          );
        }
        if (!encrypt) return respond(sequence + 1);
        reply(sequence + 1, head);
        (this.transport as TlsUpgradable).upgrade(tls, options.host, where, options.connectTimeoutMs).then(
          (session) => {
            this.tls = session;
            respond(sequence + 2);
          },
          (error: Error) => fail(error),
        );
        return;
      }
      if (first === 0x00) {
        this.status(readOk(r, this.ok).status);
        this.handshake = undefined;
        return ready();
      }
      if (first === 0xfe) {
        // AuthSwitchRequest: another plugin, with its own scramble.
        r.at++;
        const plugin = r.cstring();
        scramble = Buffer.from(data.subarray(r.at, end > r.at && data[end - 1] === 0 ? end - 1 : end));
        const answer = authAnswer(plugin, password, scramble);
        if (!answer)
          return fail(
            new MariadbServerError(
              `the server asks for the authentication plugin ${plugin}, which headroom does not speak: give the user mysql_native_password`,
              1251,
              '08004',
              true,
            ),
          );
        return reply(sequence + 1, (w) => w.bytes(answer));
      }
      if (first === 0x01) {
        if (awaitingPublicKey) {
          // The server's RSA public key (PEM) after our request for it.
          awaitingPublicKey = false;
          return reply(sequence + 1, (w) => w.bytes(rsaEncryptedPassword(password, scramble, data.toString('latin1', start + 1, end))));
        }
        // caching_sha2_password: 3 = fast authentication succeeded (an OK follows), 4 = full authentication needed.
        if (data[start + 1] === 3) return;
        // Full authentication: over TLS the password itself; else encrypted with the server's RSA key.
        if (this.tls) return reply(sequence + 1, (w) => w.bytes(Buffer.from(`${password}\0`, 'utf8')));
        if (options.serverPublicKey) return reply(sequence + 1, (w) => w.bytes(rsaEncryptedPassword(password, scramble, options.serverPublicKey!)));
        if (options.tls?.settings.getServerPublicKey) {
          awaitingPublicKey = true;
          return reply(sequence + 1, (w) => w.u8(0x02));
        }
        return fail(
          new TlsError(
            "the server wants caching_sha2_password full authentication, which needs TLS or the server's RSA public key",
            'CACHING_SHA2_FULL_AUTH',
            "add ?ssl=true, or ?server-public-key-path=FILE (the server's public key), or ?get-server-public-key=true (trusts the key the server sends)",
          ),
        );
      }
      return fail(new MariadbConnectionError(`unexpected packet 0x${first.toString(16)} during the handshake`, undefined));
    };
  }
}
