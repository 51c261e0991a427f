import { hostname, userInfo } from 'node:os';
import { createRequire } from 'node:module';
import type { Row, SqlValue } from '../../driver.js';
import { Framer } from '../../transport/framer.js';
import { connectTransport } from '../../transport/connect.js';
import { TransportError, type Transport, type TransportKind } from '../../transport/transport.js';
import { srpClient, type SrpClient, type SrpPlugin } from './srp.js';
import { readStatus } from './status.js';
import { Arc4 } from './arc4.js';
import { MalformedPacket, NEED_MORE, XdrReader, XdrWriter } from './xdr.js';
import {
  DESCRIBE_ITEMS,
  ParameterError,
  messageBlr,
  parseDescribe,
  readRow,
  writeMessage,
  STATEMENT_EXEC_PROCEDURE,
  STATEMENT_SELECT,
  STATEMENT_SELECT_FOR_UPDATE,
  type Field,
} from './messages.js';
import {
  ARCH_GENERIC,
  cnct,
  CONNECT_VERSION3,
  dpb,
  DSQL_CLOSE,
  DSQL_DROP,
  INVALID_OBJECT,
  LEGACY_SALT,
  OFFERED_PROTOCOLS,
  op,
  PFLAG_COMPRESS,
  PROTOCOL_16,
  PTYPE_BATCH_SEND,
  PTYPE_LAZY_SEND,
  PTYPE_MASK,
  PTYPE_RPC,
  RECORDS_ITEMS,
  SQL_DIALECT_3,
  tpb,
  WIRE_CRYPT_DISABLED,
  WIRE_CRYPT_ENABLED,
  WIRECRYPT_INCOMPATIBLE,
  WIRECRYPT_REQUIRED,
} from './protocol.js';

export interface FirebirdWireOptions {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  connectTimeoutMs: number;
  /**
   * Login plugins in the order the client prefers them; default Srp, Srp256, Legacy_Auth (with
   * Srp256 first, Firebird 3 without Srp256 in its AuthServer falls to Legacy_Auth, not Srp).
   */
  plugins?: readonly LoginPlugin[];
  /**
   * Encrypt the wire (Arc4, keyed by the Srp session key). Without it the client tells the
   * server it wants no encryption, and connect() tries once more with it when the server
   * answers that its WireCrypt is Required.
   */
  encrypt?: boolean;
  /**
   * Offer ptype_lazy_send (default true): when the server accepts it, a statement's allocation
   * and preparation go in one write. False offers ptype_batch_send at most, as before.
   */
  lazySend?: boolean;
}

export type LoginPlugin = 'Srp' | 'Srp256' | 'Legacy_Auth';
const DEFAULT_PLUGINS: readonly LoginPlugin[] = ['Srp', 'Srp256', 'Legacy_Auth'];

/** How a transaction runs: isolation, lock waits, writes. */
export interface TransactionMode {
  isolation: 'read-committed' | 'concurrency';
  wait: boolean;
  readOnly: boolean;
}

export function transactionBlock(mode: TransactionMode): Buffer {
  const bytes: number[] = [tpb.version3, mode.readOnly ? tpb.read : tpb.write, mode.wait ? tpb.wait : tpb.nowait];
  if (mode.isolation === 'read-committed') bytes.push(tpb.readCommitted, tpb.recVersion);
  else bytes.push(tpb.concurrency);
  return Buffer.from(bytes);
}

/** A statement prepared on the server: its handle, kind and the BLR of both messages, made once. */
export interface PreparedStatement {
  handle: number;
  type: number;
  input: Field[];
  output: Field[];
  inputBlr: Buffer;
  outputBlr: Buffer;
  /**
   * The transaction whose execute left this statement's cursor open (its end closes it), or
   * undefined. Executing the statement again while it is open closes it first.
   */
  openIn: number | undefined;
}

/** What the next answer of the server completes. */
const HANDLE = 0; // op_response: the object handle
const DATA = 1; // op_response: the data buffer
const ROWS = 2; // op_fetch_response...: rows until the batch ends
const COUNT = 3; // op_response of op_info_sql records: affected rows
const IGNORE = 4; // op_response nobody waits for (a deferred cursor close)
const ACCEPT = 5; // op_accept / op_cond_accept / op_accept_data / op_cont_auth
const SQL_ROW = 6; // op_sql_response then op_response (op_execute2)

interface Pending {
  mode: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
  fields?: Field[];
  rows?: Row[];
  /** ROWS: set when the server said the cursor has no more rows (status 100). */
  eof?: boolean;
}

/**
 * An answer kept as it comes instead of settling a promise of its own: requests written together
 * are answered in order, so once the last one's promise settles every earlier answer is here (a
 * promise and its catch per answer were most of the client's own work in an autocommit read).
 */
class Answer implements Pending {
  value: unknown;
  error: Error | undefined;
  rows: Row[] | undefined;
  eof = false;
  private done = false;
  private wake: (() => void) | undefined;

  constructor(
    readonly mode: number,
    readonly fields?: Field[],
  ) {
    if (mode === ROWS) this.rows = [];
  }

  resolve(value: unknown): void {
    this.value = value;
    this.settle();
  }

  reject(error: Error): void {
    this.error = error;
    this.settle();
  }

  /** Only where nothing later was written to wait on. */
  settled(): Promise<void> {
    return this.done ? Promise.resolve() : new Promise((resolve) => (this.wake = resolve));
  }

  private settle(): void {
    this.done = true;
    this.wake?.();
  }
}

interface Accept {
  op: number;
  protocol: number;
  type: number;
  data: Buffer;
  plugin: string;
  authenticated: boolean;
}

const FETCH_ROWS = 400;
/** selectInNextTransaction(): the transaction's handle was not the one expected. */
export const MISPREDICTED = Symbol('mispredicted transaction handle');
const MAX_FIELD = 1 << 24;
const noop = (): void => {};

/**
 * A client for Firebird's remote protocol (versions 13, 16 and 17: Firebird 3, 4 and 5) on
 * headroom's transports: packets are built in one reused buffer, several requests go in one
 * write and their answers are parsed where the transport put them, in the order sent (under
 * ptype_lazy_send, when the server accepts it, a statement's allocation and preparation share a
 * write as well; statement drops wait for the next request; cursors close with their
 * transaction). It covers
 * what headroom's workloads need: Srp, Srp256 and Legacy_Auth logins without wire encryption,
 * transactions, prepared statements with typed messages, batched fetches and row counts.
 */
export class FirebirdWire {
  private readonly queue: Pending[] = [];
  private readonly framer = new Framer((data, start, end) => this.parse(data, start, end));
  private readonly reader = new XdrReader();
  private readonly w = new XdrWriter();
  private transport: Transport | undefined;

  /** Which transport carries this connection (drivers/transport). */
  get transportKind(): TransportKind | undefined {
    return this.transport?.kind;
  }
  private closedBy: Error | undefined;
  private dbHandle = 0;
  protocol = 0;
  /** The server accepted ptype_lazy_send: prepare() allocates and prepares in one write. */
  lazy = false;
  /** The login plugin the server accepted. */
  plugin = '';
  private where: string;
  private sessionKey: Buffer | undefined;
  /** The hex length of the last Srp salt the server sent (it drops leading zeros, so it varies): for tests. */
  srpSaltLength = 0;
  private cipher: Arc4 | undefined;
  private decipher: Arc4 | undefined;

  private constructor(options: FirebirdWireOptions) {
    this.where = `${options.host}:${options.port}`;
  }

  static async connect(options: FirebirdWireOptions): Promise<FirebirdWire> {
    try {
      return await FirebirdWire.connectOnce(options);
    } catch (error) {
      const code = (error as { gdscode?: number }).gdscode;
      if (options.encrypt || (code !== WIRECRYPT_REQUIRED && code !== WIRECRYPT_INCOMPATIBLE)) throw error;
      // Encrypted, if this login can be (Srp gives the key); else the server refuses it again
      // and says that encryption is required.
      return FirebirdWire.connectOnce({ ...options, encrypt: true });
    }
  }

  private static async connectOnce(options: FirebirdWireOptions): Promise<FirebirdWire> {
    const wire = new FirebirdWire(options);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new TransportError(
          `timeout expired while attaching at ${wire.where}: the server accepted the connection, but no Firebird answer came`,
          'ETIMEDOUT',
        );
        wire.onClose(error);
        reject(error);
      }, options.connectTimeoutMs);
    });
    try {
      await Promise.race([wire.open(options), timeout]);
      return wire;
    } catch (error) {
      wire.transport?.close();
      wire.onClose(error as Error);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private async open(options: FirebirdWireOptions): Promise<void> {
    this.transport = await connectTransport(
      { host: options.host, port: options.port },
      {
        onData: (buffer, start, end) => {
          this.decipher?.apply(buffer, start, end);
          this.framer.push(buffer, start, end);
        },
        onClose: (error) => this.onClose(error),
      },
      options.connectTimeoutMs,
    );
    const srp = srpClient();
    let accept = (await this.send(this.connectPacket(options, srp), ACCEPT)) as Accept;
    if ((accept.type & PFLAG_COMPRESS) !== 0)
      throw new Error(`${this.where} turned on wire compression, which headroom's Firebird client does not speak: set WireCompression = false`);
    this.protocol = accept.protocol;
    this.lazy = (accept.type & PTYPE_MASK) === PTYPE_LAZY_SEND;
    // op_cond_accept: the login goes on with op_cont_auth now; op_accept_data: the first
    // answer rides in the attach's parameter block; either way the server may ask for more
    // (op_cont_auth: another round, or another plugin) before it answers the attach.
    let authData = accept.authenticated || accept.op === op.accept ? '' : this.answerChallenge(accept, srp, options);
    if (options.encrypt && this.sessionKey) {
      if (accept.op === op.condAccept) {
        // The proof goes first; the session key is used once the server has accepted it.
        const answer = (await this.send(this.contAuthPacket(authData, accept.plugin, options), ACCEPT)) as Accept | number;
        if (typeof answer !== 'number') throw new Error(`${this.where} asked for more login data before wire encryption`);
        accept = { ...accept, op: op.accept };
      }
      await this.startEncryption();
    }
    let next = (await this.send(
      accept.op === op.condAccept ? this.contAuthPacket(authData, accept.plugin, options) : this.attachPacket(options, authData),
      ACCEPT,
    )) as Accept | number;
    let attached = accept.op !== op.condAccept;
    for (let rounds = 0; ; rounds++) {
      if (typeof next === 'number') {
        if (attached) {
          this.dbHandle = next;
          break;
        }
        attached = true;
        next = (await this.send(this.attachPacket(options, ''), ACCEPT)) as Accept | number;
        continue;
      }
      if (rounds > 4) throw new Error(`${this.where} kept asking for more login data`);
      accept = { ...next, protocol: this.protocol };
      authData = this.answerChallenge(accept, srp, options);
      next = (await this.send(this.contAuthPacket(authData, accept.plugin, options), ACCEPT)) as Accept | number;
    }
    this.plugin = accept.plugin;
  }

  /** op_crypt (in plaintext), then Arc4 both ways: the server's answer comes encrypted. */
  private async startEncryption(): Promise<void> {
    const packet = this.w.reset().int32(op.crypt).string('Arc4').string('Symmetric').take();
    const answer = this.expect(HANDLE);
    this.transport!.write(packet, 0, packet.length);
    this.cipher = new Arc4(this.sessionKey!);
    this.decipher = new Arc4(this.sessionKey!);
    await answer;
  }

  private connectPacket(options: FirebirdWireOptions, srp: SrpClient): Buffer {
    const user: number[] = [];
    const put = (tag: number, value: Buffer): void => {
      user.push(tag, value.length, ...value);
    };
    put(cnct.login, Buffer.from(options.user.toUpperCase()));
    const plugins = options.plugins ?? DEFAULT_PLUGINS;
    put(cnct.pluginName, Buffer.from(plugins[0]!));
    put(cnct.pluginList, Buffer.from(plugins.join(', ')));
    // Specific data longer than 254 bytes goes in numbered pieces (A is 256 hex digits).
    const specific = Buffer.from(plugins[0] === 'Legacy_Auth' ? legacyHash(options.password) : srp.publicHex);
    for (let i = 0, part = 0; i < specific.length; i += 254, part++) {
      const piece = specific.subarray(i, i + 254);
      user.push(cnct.specificData, piece.length + 1, part, ...piece);
    }
    put(cnct.clientCrypt, Buffer.from([options.encrypt ? WIRE_CRYPT_ENABLED : WIRE_CRYPT_DISABLED, 0, 0, 0]));
    put(cnct.user, Buffer.from(safeUserName()));
    put(cnct.host, Buffer.from(hostname()));
    put(cnct.userVerification, Buffer.alloc(0));
    const w = this.w.reset().int32(op.connect).int32(op.attach).int32(CONNECT_VERSION3).int32(ARCH_GENERIC).string(options.database);
    w.int32(OFFERED_PROTOCOLS.length).bytes(Buffer.from(user));
    OFFERED_PROTOCOLS.forEach((version, i) =>
      w
        .int32(version)
        .int32(ARCH_GENERIC)
        .int32(PTYPE_RPC)
        .int32(options.lazySend === false ? PTYPE_BATCH_SEND : PTYPE_LAZY_SEND)
        .int32(i + 1),
    );
    return w.take();
  }

  private answerChallenge(accept: Accept, srp: SrpClient, options: FirebirdWireOptions): string {
    const plugin = accept.plugin;
    if (plugin === 'Srp' || plugin === 'Srp256') {
      // An empty challenge asks for A again (the server chose this plugin after another).
      if (accept.data.length === 0) return srp.publicHex;
      const [salt, serverPublic] = srpChallenge(accept.data);
      this.srpSaltLength = salt.length;
      const { proofHex, sessionKey } = srp.proof(options.user, options.password, salt, serverPublic, plugin as SrpPlugin);
      this.sessionKey = sessionKey;
      return proofHex;
    }
    this.sessionKey = undefined;
    this.plugin = plugin;
    if (plugin === 'Legacy_Auth') return legacyHash(options.password);
    throw new Error(
      `${this.where} asks for the login plugin "${plugin}", which headroom's Firebird client does not speak (it speaks ${DEFAULT_PLUGINS.join(', ')})`,
    );
  }

  private contAuthPacket(data: string, plugin: string, options: FirebirdWireOptions): Buffer {
    const list = (options.plugins ?? DEFAULT_PLUGINS).join(', ');
    return this.w.reset().int32(op.contAuth).bytes(Buffer.from(data)).string(plugin).string(list).bytes(Buffer.alloc(0)).take();
  }

  private attachPacket(options: FirebirdWireOptions, authData: string): Buffer {
    const bytes: number[] = [dpb.version1];
    const put = (tag: number, value: Buffer): void => {
      bytes.push(tag, value.length, ...value);
    };
    put(dpb.lcCtype, Buffer.from('UTF8'));
    put(dpb.utf8Filename, Buffer.alloc(0));
    put(dpb.userName, Buffer.from(options.user));
    const pid = Buffer.alloc(4);
    pid.writeInt32LE(process.pid);
    put(dpb.processId, pid);
    put(dpb.processName, Buffer.from('headroom'));
    if (authData) put(dpb.specificAuthData, Buffer.from(authData).subarray(0, 255));
    return this.w.reset().int32(op.attach).int32(0).string(options.database).bytes(Buffer.from(bytes)).take();
  }

  // ---- requests ----

  /** Starts a transaction; resolves to its handle. */
  startTransaction(block: Buffer): Promise<number> {
    this.begin().int32(op.transaction).int32(this.dbHandle).bytes(block);
    return (this.flush(HANDLE) as Promise<number>).then((handle) => (this.lastTransaction = handle));
  }

  /** The handle of the last transaction started: the server hands a freed handle out again. */
  lastTransaction = 0;

  /** Writes to the socket so far (each a round trip's request, or part of one): what the pipelined paths save. */
  writes = 0;

  /**
   * An autocommit read in one round trip: the transaction's start, and the execute, first fetch,
   * close and commit addressed to the handle the start is expected to return (the server reuses
   * the handle of this connection's last transaction, which has ended). When the start returns
   * another handle, the rest failed on a handle of no transaction of this connection (no other is
   * open): the new transaction is rolled back and MISPREDICTED returned, to run the slow way.
   * Otherwise as executeRowsThenCommit().
   */
  async selectInNextTransaction(block: Buffer, statement: PreparedStatement, params: readonly SqlValue[]): Promise<Row[] | undefined | typeof MISPREDICTED> {
    const predicted = this.lastTransaction;
    this.begin().int32(op.transaction).int32(this.dbHandle).bytes(block);
    const started = this.answer(HANDLE);
    const failed = this.writeExecute(statement, predicted, params, false, true);
    if (failed) {
      failed.catch(noop);
      await started.settled();
      if (started.error === undefined) await this.rollback(started.value as number).catch(noop);
      return failed;
    }
    const { executed, first, committed } = this.fetchThenCommit(statement, predicted);
    const commitError = await committed.then(noop, (error: Error) => error);
    if (started.error) throw started.error;
    const handle = started.value as number;
    this.lastTransaction = handle;
    if (handle !== predicted) {
      await this.rollback(handle).catch(noop);
      return MISPREDICTED;
    }
    const error = executed.error ?? first.error ?? commitError;
    if (error) {
      // A commit that failed leaves the transaction open: end it.
      if (commitError) await this.rollback(handle).catch(noop);
      throw error;
    }
    return first.eof ? first.rows! : undefined;
  }

  commit(transaction: number): Promise<unknown> {
    this.begin().int32(op.commit).int32(transaction);
    this.ending(transaction);
    return this.flush(HANDLE);
  }

  rollback(transaction: number): Promise<unknown> {
    this.begin().int32(op.rollback).int32(transaction);
    this.ending(transaction);
    return this.flush(HANDLE);
  }

  /**
   * Allocates a statement and prepares `sql` in it. Under ptype_lazy_send both go in one write
   * (the prepare names the statement the allocation makes as INVALID_OBJECT); otherwise the
   * allocation's answer, the handle, is awaited first.
   */
  async prepare(transaction: number, sql: string): Promise<PreparedStatement> {
    this.begin().int32(op.allocateStatement).int32(this.dbHandle);
    if (!this.lazy) {
      const handle = (await this.flush(HANDLE)) as number;
      this.begin();
      this.writePrepare(transaction, handle, sql);
      return this.described(handle, sql, (await this.flush(DATA).catch((error: Error) => this.dropAndThrow(handle, error))) as Buffer);
    }
    const allocated = this.answer(HANDLE);
    this.writePrepare(transaction, INVALID_OBJECT, sql);
    const info = (await this.flush(DATA).catch((error: Error) => error)) as Buffer | Error;
    if (allocated.error) {
      // The prepare then went to whatever object the server made last, which may be another
      // statement of this connection: what it holds is not known any more.
      if (!(info instanceof Error)) this.corrupt(new Error(`a statement was prepared after its allocation failed (${allocated.error.message})`));
      throw allocated.error;
    }
    const handle = allocated.value as number;
    if (info instanceof Error) return this.dropAndThrow(handle, info);
    return this.described(handle, sql, info);
  }

  private writePrepare(transaction: number, handle: number, sql: string): void {
    this.w.int32(op.prepareStatement).int32(transaction).int32(handle).int32(SQL_DIALECT_3).string(sql).bytes(DESCRIBE_ITEMS).int32(0xffff);
  }

  private described(handle: number, sql: string, info: Buffer): PreparedStatement {
    const described = parseDescribe(info);
    if (described.truncated) {
      this.drop(handle);
      throw new Error(`the description of a statement of ${described.output.length} columns did not fit in 64 KB: ${sql.slice(0, 80)}`);
    }
    return {
      handle,
      type: described.statementType,
      input: described.input,
      output: described.output,
      inputBlr: messageBlr(described.input, true),
      outputBlr: messageBlr(described.output, false),
      openIn: undefined,
    };
  }

  private dropAndThrow(handle: number, error: Error): never {
    this.drop(handle);
    throw error;
  }

  /**
   * Drops a statement in front of the next request on this connection (as fbclient defers it
   * under ptype_lazy_send): the server answers in order, so the drop costs no round trip of its
   * own, and nobody waits for its answer.
   */
  drop(handle: number): void {
    this.pendingDrops.push(handle);
  }

  /**
   * Executes a statement that returns no cursor and resolves to the rows it changed (its
   * op_info_sql answer, sent in the same write). EXECUTE PROCEDURE's output row is not read.
   */
  executeCount(statement: PreparedStatement, transaction: number, params: readonly SqlValue[]): Promise<number> {
    if (isCursor(statement)) return this.executeRows(statement, transaction, params).then((rows) => rows.length);
    const failed = this.writeExecute(statement, transaction, params, false);
    if (failed) return failed;
    const executed = this.answer(HANDLE);
    this.w.int32(op.infoSql).int32(statement.handle).int32(0).bytes(RECORDS_ITEMS).int32(64);
    // The execute's error, when it failed, is the one to report (the count then fails too).
    return (this.flush(COUNT) as Promise<number>).then(
      (count) => {
        if (executed.error) throw executed.error;
        return count;
      },
      (error: Error) => {
        throw executed.error ?? error;
      },
    );
  }

  /** Executes and reads every row: a cursor's in batches (execute and the first fetch share a write), EXECUTE PROCEDURE's one row. */
  async executeRows(statement: PreparedStatement, transaction: number, params: readonly SqlValue[]): Promise<Row[]> {
    const cursor = isCursor(statement);
    const failed = this.writeExecute(statement, transaction, params, !cursor);
    if (failed) return failed;
    if (!cursor)
      return this.flush(statement.output.length > 0 ? SQL_ROW : HANDLE, statement.output).then((rows) => (Array.isArray(rows) ? (rows as Row[]) : []));
    const executed = this.expect(HANDLE);
    executed.catch(noop);
    this.writeFetch(statement);
    const first = this.flush(ROWS, statement.output) as Promise<Pending>;
    first.catch(noop);
    await executed;
    // The cursor stays open after its last row until the transaction ends (which closes it) or
    // the statement runs again in it (writeExecute() closes it first): no close of its own.
    this.opened(statement, transaction);
    let batch = (await first) as Pending;
    const rows = batch.rows!;
    while (!batch.eof) {
      this.begin();
      this.writeFetch(statement);
      batch = (await this.flush(ROWS, statement.output)) as Pending;
      for (const row of batch.rows!) rows.push(row);
    }
    return rows;
  }

  /**
   * A cursor's execute, first fetch and the transaction's commit in one write: a whole
   * autocommit read in one round trip after the transaction's start. Resolves to undefined when
   * the rows did not fit one batch: the commit has closed the cursor, and the caller reads again
   * in a transaction of its own (only for read-only transactions, where reading again is safe).
   */
  async executeRowsThenCommit(statement: PreparedStatement, transaction: number, params: readonly SqlValue[]): Promise<Row[] | undefined> {
    if (!isCursor(statement)) throw new Error('executeRowsThenCommit() takes a cursor');
    const failed = this.writeExecute(statement, transaction, params, false);
    if (failed) return failed;
    const { executed, first, committed } = this.fetchThenCommit(statement, transaction);
    const commitError = await committed.then(noop, (error: Error) => error);
    const error = executed.error ?? first.error ?? commitError;
    if (error) throw error;
    return first.eof ? first.rows! : undefined;
  }

  /**
   * After an op_execute written into the current request: the first fetch and the commit, sent in
   * one write. The commit closes the cursor (no op_free_statement of its own). The execute's and
   * the fetch's answers are kept as they come; the commit's promise settles after both (the
   * server answers in order).
   */
  private fetchThenCommit(statement: PreparedStatement, transaction: number): { executed: Answer; first: Answer; committed: Promise<unknown> } {
    const executed = this.answer(HANDLE);
    this.writeFetch(statement);
    const first = this.answer(ROWS, statement.output);
    this.w.int32(op.commit).int32(transaction);
    this.ending(transaction);
    return { executed, first, committed: this.flush(HANDLE) };
  }

  /**
   * Builds op_execute (op_execute2 with the output message for EXECUTE PROCEDURE); returns a
   * rejected promise, with nothing of it built, when the parameters do not fit the statement.
   */
  private writeExecute(
    statement: PreparedStatement,
    transaction: number,
    params: readonly SqlValue[],
    procedureOutput: boolean,
    append = false,
  ): Promise<never> | undefined {
    const w = append ? this.w : this.begin();
    const mark = w.length;
    const openIn = statement.openIn;
    if (openIn !== undefined) this.writeClose(statement);
    const procedure = procedureOutput && statement.type === STATEMENT_EXEC_PROCEDURE && statement.output.length > 0;
    try {
      if (params.length !== statement.input.length) {
        throw new ParameterError(`the statement takes ${statement.input.length} parameters, ${params.length} were given`);
      }
      w.int32(procedure ? op.execute2 : op.execute)
        .int32(statement.handle)
        .int32(transaction)
        .bytes(statement.inputBlr)
        .int32(0);
      w.int32(statement.input.length > 0 ? 1 : 0);
      if (statement.input.length > 0) writeMessage(w, statement.input, params);
    } catch (error) {
      if (openIn !== undefined) {
        // The close goes too: the cursor stays open.
        this.queue.pop();
        this.opened(statement, openIn);
      }
      w.length = mark;
      if (mark > 0) this.write(); // the deferred drops (or a start), already awaited in the queue
      return Promise.reject(error as Error);
    }
    if (procedure) w.bytes(statement.outputBlr).int32(0);
    if (this.protocol >= PROTOCOL_16) w.int32(0); // statement timeout: none
    return undefined;
  }

  private writeFetch(statement: PreparedStatement): void {
    this.w.int32(op.fetch).int32(statement.handle).bytes(statement.outputBlr).int32(0).int32(FETCH_ROWS);
  }

  /** Detaches and closes the socket; requests still waiting fail. */
  /** Whether a request waits on the server (Connection.pendingRequest): '' (the wire keeps no statement text), else undefined. */
  pendingRequest(): string | undefined {
    return this.queue.length > 0 ? '' : undefined;
  }

  close(): void {
    if (!this.transport || this.closedBy) return;
    const goodbye = this.w.reset().int32(op.detach).int32(this.dbHandle).int32(op.disconnect).take();
    const transport = this.transport;
    this.onClose(new TransportError(`the connection to ${this.where} was closed`, 'ECONNABORTED'));
    this.cipher?.apply(goodbye, 0, goodbye.length);
    transport.close(goodbye);
  }

  // ---- writing ----

  /** Starts a write: statement drops deferred by drop() go first, their answers awaited by nobody. */
  private begin(): XdrWriter {
    const w = this.w.reset();
    if (this.pendingDrops.length > 0 && !this.closedBy) {
      for (const handle of this.pendingDrops) {
        w.int32(op.freeStatement).int32(handle).int32(DSQL_DROP);
        this.queue.push({ mode: IGNORE, resolve: noop, reject: noop });
      }
      this.pendingDrops.length = 0;
    }
    return w;
  }

  private readonly pendingDrops: number[] = [];
  /** Statements whose cursor is open, each in the transaction of its openIn. */
  private readonly openCursors: PreparedStatement[] = [];

  private opened(statement: PreparedStatement, transaction: number): void {
    statement.openIn = transaction;
    this.openCursors.push(statement);
  }

  /** An open cursor's op_free_statement(DSQL_CLOSE), its answer awaited by nobody (it fails only when the cursor is not open). */
  private writeClose(statement: PreparedStatement): void {
    this.w.int32(op.freeStatement).int32(statement.handle).int32(DSQL_CLOSE);
    this.queue.push({ mode: IGNORE, resolve: noop, reject: noop });
    statement.openIn = undefined;
    const at = this.openCursors.indexOf(statement);
    if (at >= 0) this.openCursors.splice(at, 1);
  }

  /**
   * The end of `transaction` (its commit or rollback is being written) closes its cursors on the
   * server. Marked when written: a commit that fails leaves the transaction open, and it is then
   * rolled back, not used further.
   */
  private ending(transaction: number): void {
    const open = this.openCursors;
    if (open.length === 0) return;
    for (let i = open.length - 1; i >= 0; i--) {
      if (open[i]!.openIn === transaction) {
        open[i]!.openIn = undefined;
        open.splice(i, 1);
      }
    }
  }

  private expect(mode: number, fields?: Field[]): Promise<unknown> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    return new Promise((resolve, reject) => {
      this.queue.push(mode === ROWS || mode === SQL_ROW ? { mode, resolve, reject, fields, rows: [] } : { mode, resolve, reject });
    });
  }

  /** The answer to the request just built, kept for whoever awaits a later one (see Answer). */
  private answer(mode: number, fields?: Field[]): Answer {
    const answer = new Answer(mode, fields);
    if (this.closedBy) answer.reject(this.closedBy);
    else this.queue.push(answer);
    return answer;
  }

  /** Sends what was built since begin(), the last request awaiting `mode`'s answer. */
  private flush(mode: number, fields?: Field[]): Promise<unknown> {
    const answer = this.expect(mode, fields);
    this.write();
    return answer;
  }

  private write(): void {
    if (this.closedBy || !this.transport) return;
    this.writes++;
    this.cipher?.apply(this.w.buffer, 0, this.w.length);
    this.transport.write(this.w.buffer, 0, this.w.length);
  }

  private send(packet: Buffer, mode: number): Promise<unknown> {
    const answer = this.expect(mode);
    this.writes++;
    this.cipher?.apply(packet, 0, packet.length);
    this.transport!.write(packet, 0, packet.length);
    return answer;
  }

  // ---- reading ----

  private parse(data: Buffer, start: number, end: number): number {
    let pos = start;
    const r = this.reader;
    while (pos < end) {
      r.at(data, pos, end);
      try {
        this.packet(r);
      } catch (error) {
        if (error === NEED_MORE) return pos;
        this.corrupt(error as Error);
        return end;
      }
      pos = r.pos;
    }
    return end;
  }

  private packet(r: XdrReader): void {
    const code = r.int32();
    if (code === op.dummy) return;
    const pending = this.queue[0];
    if (!pending) throw new MalformedPacket(`an answer (packet type ${code}) to no request`);
    switch (code) {
      case op.response: {
        const handle = r.int32();
        r.int64(); // blob id
        const data = r.span(MAX_FIELD);
        const error = readStatus(r);
        this.queue.shift();
        if (error) return pending.reject(error);
        if (pending.mode === DATA) return pending.resolve(Buffer.from(r.buffer.subarray(data.start, data.end)));
        if (pending.mode === COUNT) return pending.resolve(recordCount(r.buffer, data.start, data.end));
        if (pending.mode === SQL_ROW) return pending.resolve(pending.rows);
        if (pending.mode === ACCEPT) return pending.resolve(handle);
        if (pending.mode === ROWS) throw new MalformedPacket('a plain answer to a fetch');
        return pending.resolve(handle);
      }
      case op.fetchResponse: {
        const status = r.int32();
        const count = r.int32();
        if (pending.mode !== ROWS) throw new MalformedPacket('rows where none were asked for');
        if (count > 0) {
          const row = readRow(r, pending.fields!);
          pending.rows!.push(row);
          return;
        }
        this.queue.shift();
        pending.eof = status === 100;
        return pending.resolve(pending);
      }
      case op.sqlResponse: {
        const count = r.int32();
        if (pending.mode !== SQL_ROW) throw new MalformedPacket('an output row where none was asked for');
        if (count > 0) pending.rows!.push(readRow(r, pending.fields!));
        return;
      }
      case op.accept:
      case op.condAccept:
      case op.acceptData:
      case op.contAuth: {
        if (pending.mode !== ACCEPT) throw new MalformedPacket(`a login packet (type ${code}) after the login`);
        const accept: Accept = { op: code, protocol: 0, type: 0, data: Buffer.alloc(0), plugin: '', authenticated: code === op.accept };
        if (code !== op.contAuth) {
          accept.protocol = r.int32() & 0xffff;
          accept.protocol = (accept.protocol & 0x7fff) | 0x8000;
          r.int32(); // architecture
          accept.type = r.int32();
          if (!OFFERED_PROTOCOLS.includes(accept.protocol)) throw new MalformedPacket(`protocol version ${accept.protocol & 0x7fff}, which was not offered`);
          const kind = accept.type & PTYPE_MASK;
          if (kind !== PTYPE_RPC && kind !== PTYPE_BATCH_SEND && kind !== PTYPE_LAZY_SEND)
            throw new MalformedPacket(`packet type ${kind}, which was not offered`);
        }
        if (code !== op.accept) {
          accept.data = r.bytes(MAX_FIELD);
          accept.plugin = r.string(1024);
          if (code === op.contAuth)
            r.string(1024); // the server's plugin list
          else accept.authenticated = r.int32() !== 0;
          r.bytes(MAX_FIELD); // keys: wire-crypt plugins, unused without encryption
        }
        this.queue.shift();
        return pending.resolve(accept);
      }
      case op.reject:
        this.queue.shift();
        return pending.reject(new Error(`${this.where} refused every protocol offered (Firebird 3, 4 and 5's): is it an older Firebird?`));
      default:
        throw new MalformedPacket(`unknown packet type ${code}`);
    }
  }

  /** Bytes that cannot be Firebird's: everything waiting fails and the connection is dropped. */
  private corrupt(error: Error): void {
    const failure = new TransportError(`${this.where} sent bytes that are not a Firebird answer (${error.message}); the connection was dropped`, 'EPROTO');
    failure.cause = error;
    const transport = this.transport;
    this.onClose(failure);
    transport?.close();
  }

  private onClose(error: Error | undefined): void {
    if (this.closedBy) return;
    this.closedBy = error ?? new TransportError(`the Firebird server at ${this.where} closed the connection`, 'ECONNRESET');
    for (const pending of this.queue.splice(0)) pending.reject(this.closedBy);
  }
}

/** A statement that opens a cursor (SELECT, SELECT ... FOR UPDATE). */
export function isCursor(statement: PreparedStatement): boolean {
  return statement.type === STATEMENT_SELECT || statement.type === STATEMENT_SELECT_FOR_UPDATE;
}

/** isc_info_sql_records: inserted + updated + deleted rows. */
function recordCount(buffer: Buffer, start: number, end: number): number {
  let pos = start;
  if (buffer[pos] !== 23) return 0;
  pos += 3;
  let total = 0;
  while (pos + 3 <= end && buffer[pos] !== 1) {
    const item = buffer[pos]!;
    const length = buffer.readUInt16LE(pos + 1);
    const value = length === 0 ? 0 : buffer.readIntLE(pos + 3, Math.min(length, 4));
    if (item >= 14 && item <= 16) total += value; // insert, update, delete counts (13 is select's)
    pos += 3 + length;
  }
  return total;
}

/**
 * Srp's challenge: the salt and B, each a 2-byte little-endian length and that many hex digits.
 * The salt's hex has no leading zeros, so its length varies; B starts right after it.
 */
export function srpChallenge(data: Buffer): [salt: string, serverPublic: string] {
  if (data.length < 4) throw new MalformedPacket('an Srp challenge of fewer than 4 bytes');
  const saltLength = data.readUInt16LE(0);
  if (2 + saltLength + 2 > data.length) throw new MalformedPacket('an Srp salt longer than its challenge');
  const keyLength = data.readUInt16LE(2 + saltLength);
  if (4 + saltLength + keyLength > data.length) throw new MalformedPacket('an Srp key longer than its challenge');
  return [data.toString('latin1', 2, 2 + saltLength), data.toString('latin1', 4 + saltLength, 4 + saltLength + keyLength)];
}

let unixCrypt: ((password: string, salt: string) => string) | undefined;
/** Legacy_Auth's hash: DES crypt(3) with Firebird's fixed salt, the salt's two characters dropped (node-firebird's crypt). */
function legacyHash(password: string): string {
  unixCrypt ??= (createRequire(import.meta.url)('node-firebird/lib/unix-crypt.js') as { crypt(p: string, s: string): string }).crypt;
  return unixCrypt(password, LEGACY_SALT).substring(2);
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'headroom';
  }
}
