import net from 'node:net';
import type { SocketAddress } from './transport/transport.js';
// PostgreSQL's SSLRequest: a PostgreSQL server answers it with one byte, S or N.
import { SSL_REQUEST } from './postgres/wire/tls-negotiation.js';

/**
 * What kind of server listens at an address, for a client that got something it cannot read (or
 * nothing): a PostgreSQL URL pointed at MariaDB's port should say "MariaDB answered", not
 * ECONNRESET or a timeout. Used on failure paths only, never per statement.
 */
export type ServerKind = 'PostgreSQL' | 'MariaDB' | 'MySQL' | 'Firebird';

export interface Identified {
  kind: ServerKind | undefined;
  /** For the error message: "a MariaDB server (10.11.6-MariaDB)", "a server that sent 'SSH-2.0-...'". */
  description: string;
}

/**
 * Reads a server's unsolicited first bytes: MariaDB and MySQL greet first with a packet of
 * protocol version 10 and their version string; anything else is shown as its printable start.
 */
export function describeGreeting(data: Buffer, start: number, end: number): Identified {
  // Protocol::HandshakeV10: 3-byte length (a few hundred bytes), sequence 0, protocol 10, NUL-terminated printable version.
  const length = end - start >= 4 ? data[start]! | (data[start + 1]! << 8) | (data[start + 2]! << 16) : 0;
  const stop = data.indexOf(0, start + 5);
  const version = stop > 0 && stop < end ? data.toString('latin1', start + 5, stop) : '';
  if (data[start + 3] === 0 && data[start + 4] === 0x0a && length >= 30 && length < 1024 && /^[\x20-\x7e]{1,64}$/.test(version)) {
    const shown = version.replace(/^5\.5\.5-/, '');
    const kind = /mariadb/i.test(shown) ? 'MariaDB' : 'MySQL';
    return { kind, description: `a ${kind} server (${shown})` };
  }
  const shown = data
    .toString('latin1', start, Math.min(end, start + 40))
    .replace(/[^\x20-\x7e]/g, '.')
    .trim();
  return { kind: undefined, description: `a server that sent "${shown}"` };
}

const GREETING_WAIT_MS = 300;
const ANSWER_WAIT_MS = 1000;
const CONNECT_WAIT_MS = 3000;
/**
 * Firebird's op_connect (op_attach, CONNECT_VERSION3, generic architecture, empty file name and
 * user identification, one protocol: 10, rpc to batch_send): a Firebird server answers op_accept
 * (3), op_reject (4), op_cond_accept (98) or op_accept_data (94).
 */
const FIREBIRD_CONNECT = Buffer.from([1, 19, 3, 1, 0, 1, 0, 10, 1, 2, 3, 2].flatMap((n) => [0, 0, 0, n]));
const FIREBIRD_ANSWERS = new Set([3, 4, 94, 98]);

const cache = new Map<string, Promise<Identified>>();

/**
 * Connects to `address` (at most three times, each briefly) to learn what listens there: first
 * it waits for a greeting (MariaDB, MySQL), then sends an SSLRequest (PostgreSQL), then an
 * op_connect (Firebird). A definite answer is kept per address for the process, and one under
 * way is shared, so that a thousand terminals failing together ask once.
 */
export function identifyServer(address: SocketAddress): Promise<Identified> {
  const key = 'path' in address ? address.path : `${address.host}:${address.port}`;
  let known = cache.get(key);
  if (!known) {
    known = identify(address);
    cache.set(key, known);
    // Only a definite answer is kept: what was down or unreadable may be asked again later.
    void known.then((found) => found.kind === undefined && cache.delete(key));
  }
  return known;
}

async function identify(address: SocketAddress): Promise<Identified> {
  const greeting = await exchange(address, undefined, GREETING_WAIT_MS);
  if (greeting === 'refused') return { kind: undefined, description: 'nothing (the connection is refused now)' };
  if (greeting instanceof Buffer) return describeGreeting(greeting, 0, greeting.length);
  const ssl = await exchange(address, SSL_REQUEST, ANSWER_WAIT_MS);
  // S or N; an ErrorResponse (E) from a server that refuses at once.
  if (ssl instanceof Buffer && ((ssl.length === 1 && (ssl[0] === 0x53 || ssl[0] === 0x4e)) || ssl[0] === 0x45))
    return { kind: 'PostgreSQL', description: 'a PostgreSQL server' };
  // A slow greeter (a busy MariaDB) greets even after bytes were sent.
  if (ssl instanceof Buffer && describeGreeting(ssl, 0, ssl.length).kind) return describeGreeting(ssl, 0, ssl.length);
  const firebird = await exchange(address, FIREBIRD_CONNECT, ANSWER_WAIT_MS);
  if (firebird instanceof Buffer && firebird.length >= 4 && FIREBIRD_ANSWERS.has(firebird.readInt32BE(0)))
    return { kind: 'Firebird', description: 'a Firebird server' };
  return { kind: undefined, description: 'a server that answers neither as PostgreSQL, MariaDB nor Firebird' };
}

type Exchanged = Buffer | 'closed' | 'refused' | undefined;

/** Connects, sends `message` if any, and returns the first bytes that come within `waitMs` (undefined: none); 'closed' if the server hangs up first. */
function exchange(address: SocketAddress, message: Buffer | undefined, waitMs: number): Promise<Exchanged> {
  return new Promise((resolve) => {
    const socket = 'path' in address ? net.connect({ path: address.path }) : net.connect({ host: address.host, port: address.port });
    let connected = false;
    let finished = false;
    const done = (value: Exchanged): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.destroy();
      resolve(value);
    };
    let timer = setTimeout(() => done('refused'), CONNECT_WAIT_MS);
    socket.once('connect', () => {
      connected = true;
      clearTimeout(timer);
      if (message) socket.write(message);
      timer = setTimeout(() => done(undefined), waitMs);
    });
    socket.once('data', (data: Buffer) => done(data));
    socket.once('error', () => done(connected ? 'closed' : 'refused'));
    socket.once('close', () => done(connected ? 'closed' : 'refused'));
  });
}

const DEFAULT_PORTS: Record<ServerKind, number> = { PostgreSQL: 5432, MariaDB: 3306, MySQL: 3306, Firebird: 3050 };

/**
 * The server at `where` is not the DBMS the client speaks: says what answered, and how to reach
 * the right one. Each driver's classification turns it into a bad_request DbError with this hint.
 */
export class WrongServerError extends Error {
  override readonly name = 'WrongServerError';
  readonly code = 'WRONG_SERVER';
  readonly hint: string;
  constructor(expected: ServerKind, where: string, found: Identified) {
    super(`${where} is ${found.description}, not ${expected}`);
    const scheme = found.kind === 'PostgreSQL' ? 'postgres://' : found.kind === 'Firebird' ? 'firebird://' : found.kind ? 'mariadb://' : undefined;
    this.hint = scheme
      ? `use a ${scheme} URL for it, or ${expected}'s port, ${DEFAULT_PORTS[expected]} by default`
      : `check the host and port: ${expected} listens on ${DEFAULT_PORTS[expected]} by default`;
  }
}
