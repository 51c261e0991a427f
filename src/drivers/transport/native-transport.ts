import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import net from 'node:net';
import { constants } from 'node:os';
import { performance } from 'node:perf_hooks';
import { DueQueue } from '../../common/due-queue.js';
import type { WakeTimer } from '../../common/wake-timer.js';
import { checkedSession, nativeTlsContext, type NativeTlsAddon } from './native-tls.js';
import { tlsFailure, type TlsContext, type TlsSession } from './tls.js';
import { UserError } from '../../errors.js';
import { TransportError, errnoName, describeAddress, type SocketAddress, type Transport, type TransportHandler, type TransportKind } from './transport.js';

/** The compiled native/reactor.c (built by `npm install` into build/Release; see scripts/build-native.mjs). */
export interface ReactorAddon extends NativeTlsAddon {
  init(onEvents: (count: number) => void, input: Buffer, events: Int32Array): void;
  connectTcp(address: string, port: number, ipv6: boolean): number;
  connectUnix(path: string): number;
  write(id: number, buffer: Buffer, start: number, end: number): number;
  close(id: number): void;
  /** The reactor's timer (absent from a build older than it): a TIMER event at CLOCK_MONOTONIC `at` ms; 0 unsets; -errno on failure. */
  timerArm?(at: number): number;
  monotonicNow?(): number;
  /**
   * Whether the requests a batch's JavaScript wrote go to the kernel in one io_uring_enter
   * (native/send-ring.c): 0 not tried yet, 1 yes, 2 no (io_uring cannot be used here, or
   * sendRing(false)). `enabled` false turns it off for this thread, true lets it be tried again.
   */
  sendRing(enabled?: boolean): number;
  /**
   * How the waits between batches poll a little before they sleep (native/spin.c): the mode,
   * whether they poll now, the window the next wait polls for, how many waits ended while polling
   * or slept, and in auto the trials ended and won by polling. A mode sets it for this thread,
   * from the start (the counts from 0). Absent from a build older than it.
   */
  spin?(mode?: SpinMode): SpinState;
}

/** auto: polling where it costs less CPU per event, as the reactor's trials find; on: always; off: never. */
export type SpinMode = 'auto' | 'on' | 'off';

export interface SpinState {
  mode: SpinMode;
  polls: boolean;
  windowUs: number;
  caught: number;
  slept: number;
  trials: number;
  pollingWon: number;
  /**
   * What the last decision weighed (the trials so far, the earlier fading): CPU per event (ns)
   * and events a second while the waits polled, and while they slept.
   */
  trialPollingNs: number;
  trialSleepingNs: number;
  trialPollingRate: number;
  trialSleepingRate: number;
}

const DATA = 0;
const CONNECTED = 1;
const ERROR = 2;
const EOF = 3;
const DRAINED = 4;
const TLS_READY = 5;
const TIMER = 6;
/** The errno of an ERROR event when TLS failed; the addon's tlsError(id) says why. */
const TLS_FAILED = constants.errno.EPROTO;

/** Shared input: one batch of reads lands here (each socket's slice is capped in the addon). */
const INPUT_BYTES = 1 << 20;
const MAX_EVENTS = 1024;

let addon: ReactorAddon | undefined | null;

/** The addon, loaded once per thread; null when it is not built or this is not Linux. */
export function loadReactor(): ReactorAddon | null {
  if (addon !== undefined) return addon;
  if (process.platform !== 'linux') return (addon = null);
  try {
    // From the package's root (its package.json, by name): this file runs from dist/src and,
    // bundled, from dist/bundle/code, which lie at different depths below it.
    const require = createRequire(import.meta.url);
    const root = dirname(require.resolve('headroom-oltp/package.json'));
    addon = require(join(root, 'build', 'Release', 'headroom_reactor.node')) as ReactorAddon;
  } catch {
    addon = null;
  }
  return addon;
}

let reactor: Reactor | undefined;

/**
 * A WakeTimer on the reactor's timerfd (microseconds; see native/reactor.c), one per caller (a
 * job), all of this thread's sharing its one timer; null where the reactor is not built, or is a
 * build without the timer, or the timer cannot be made: then Node's timers pace the run.
 */
export function reactorWakeTimer(): WakeTimer | null {
  const native = loadReactor();
  if (!native) return null;
  reactor ??= new Reactor(native);
  const queue = reactor.timers();
  return queue ? new ReactorWakeTimer(queue) : null;
}

class ReactorWakeTimer implements WakeTimer {
  readonly kind = 'reactor';
  constructor(private readonly queue: DueQueue) {}

  wakeAt(at: number, wake: () => void): void {
    this.queue.add(at, wake, this);
  }

  wakeAll(): void {
    this.queue.wakeAll(this);
  }
}

/**
 * HEADROOM_IO_URING=off: a batch's requests go out one send(2) each, as where io_uring cannot be
 * used (benchmarks compare the two; a kernel whose io_uring misbehaves can be worked around).
 * Unset, empty or `on` is on; anything else is refused.
 */
export function sendRingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const asked = env['HEADROOM_IO_URING'];
  if (asked === undefined || asked === '' || asked === 'on') return true;
  if (asked === 'off') return false;
  throw new UserError(`HEADROOM_IO_URING=${asked} is neither on nor off`, 'use HEADROOM_IO_URING=off to send without io_uring, or leave it unset');
}

/**
 * HEADROOM_SPIN: whether the waits between batches poll before they sleep (native/spin.c). Unset,
 * empty or `auto`: as the reactor's trials find cheaper on this machine; `on`: always; `off`:
 * never, as before the reactor polled (benchmarks compare them; a client that must not poll can
 * say so).
 */
export function spinWanted(env: NodeJS.ProcessEnv = process.env): SpinMode {
  const asked = env['HEADROOM_SPIN'];
  if (asked === undefined || asked === '' || asked === 'auto') return 'auto';
  if (asked === 'on' || asked === 'off') return asked;
  throw new UserError(
    `HEADROOM_SPIN=${asked} is not auto, on or off`,
    'use HEADROOM_SPIN=off to let the client sleep at once between answers, on to have it always poll first, or leave it unset',
  );
}

/**
 * How a reactor's waits between batches went over a job: the mode (`mixed` where the jobs or
 * agents of one run had different ones), and in auto its trials and how many polling won.
 */
export interface ReactorWaits {
  mode: SpinMode | 'mixed';
  trials: number;
  pollingWon: number;
}

/** This thread's reactor's waits so far; undefined where no connection of this thread rode the reactor (or it cannot tell). */
export function reactorWaits(): ReactorWaits | undefined {
  const state = reactor?.addon.spin?.();
  return state ? { mode: state.mode, trials: state.trials, pollingWon: state.pollingWon } : undefined;
}

/** Connects through the reactor; `address.host` must already be a numeric address. */
export function connectNative(address: SocketAddress, ipv6: boolean, handler: TransportHandler, timeoutMs: number): Promise<Transport> {
  const native = loadReactor();
  if (!native) return Promise.reject(new Error('the native reactor is not built (npm run build:native)'));
  reactor ??= new Reactor(native);
  return reactor.connect(address, ipv6, handler, timeoutMs);
}

/** One per thread: owns the addon's shared buffers and routes its events to the sockets by id. */
class Reactor {
  private readonly input = Buffer.allocUnsafe(INPUT_BYTES);
  private readonly events = new Int32Array(MAX_EVENTS * 4);
  private readonly sockets: (NativeSocket | undefined)[] = [];
  /** The due times on the timerfd; made at the first timers(), null when the timer cannot be had. */
  private queue: DueQueue | null | undefined;

  constructor(readonly addon: ReactorAddon) {
    // Before init(): a refused setting must leave the thread free to try again.
    const ring = sendRingWanted();
    const spin = spinWanted();
    addon.init((count) => this.dispatch(count), this.input, this.events);
    if (!ring) addon.sendRing(false);
    if (spin !== 'auto') addon.spin?.(spin);
  }

  timers(): DueQueue | null {
    if (this.queue !== undefined) return this.queue;
    const { timerArm, monotonicNow } = this.addon;
    if (timerArm === undefined || monotonicNow === undefined) return (this.queue = null);
    // timerArm() counts on CLOCK_MONOTONIC, as performance.now() does from its own origin. Read
    // performance.now() first: each sample is then at or above the true offset (a due time is
    // armed late by the gap between the two reads, a fraction of a microsecond, never early), and
    // the least of a few is the closest.
    let offset = Infinity;
    for (let i = 0; i < 8; i++) {
      const now = performance.now();
      offset = Math.min(offset, monotonicNow() - now);
    }
    // Made now, so that a timerfd that cannot be had leaves the run on Node's timers from the start.
    if (timerArm(monotonicNow() + 3_600_000) < 0 || timerArm(0) < 0) return (this.queue = null);
    const arm = (at: number): void => {
      const failed = timerArm(at);
      // Never with a timerfd made above; a wait that could not be set must not hang its terminal.
      if (failed < 0) throw new Error(`the native reactor's timer cannot be set: ${errnoName(-failed)}`);
    };
    return (this.queue = new DueQueue({ set: (at) => arm(at + offset), clear: () => arm(0) }));
  }

  connect(address: SocketAddress, ipv6: boolean, handler: TransportHandler, timeoutMs: number): Promise<Transport> {
    const id = 'path' in address ? this.addon.connectUnix(address.path) : this.addon.connectTcp(address.host, address.port, ipv6);
    if (id < 0) return Promise.reject(connectError(-id, address));
    const socket = new NativeSocket(this, id, handler, address);
    this.sockets[id] = socket;
    return socket.opened(timeoutMs);
  }

  forget(id: number): void {
    this.sockets[id] = undefined;
    this.addon.close(id);
  }

  private dispatch(count: number): void {
    const { events, input, sockets } = this;
    for (let i = 0; i < count * 4; i += 4) {
      if (events[i + 1] === TIMER) {
        this.queue?.ring(performance.now());
        continue;
      }
      const socket = sockets[events[i]!];
      // A socket closed earlier in this batch: its remaining events have nobody to go to.
      if (socket === undefined) continue;
      switch (events[i + 1]) {
        case DATA:
          socket.handler.onData(input, events[i + 2]!, events[i + 2]! + events[i + 3]!);
          break;
        case CONNECTED:
          socket.connected();
          break;
        case ERROR:
          socket.failed(events[i + 2]!);
          break;
        case EOF:
          socket.ended(undefined);
          break;
        case DRAINED:
          socket.drainedNow();
          break;
        case TLS_READY:
          socket.tlsReady();
          break;
      }
    }
  }
}

/** A handshake startTls() began: settled by TLS_READY, an ERROR, EOF or the timeout. */
interface Handshake {
  context: TlsContext;
  host: string;
  where: string;
  resolve(session: TlsSession): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class NativeSocket implements Transport {
  kind: TransportKind = 'native';
  session: TlsSession | undefined;
  private handshake: Handshake | undefined;
  private open = true;
  private waiting = false;
  private drainWaiters: (() => void)[] = [];
  private connecting: { resolve(t: Transport): void; reject(e: Error): void; timer: NodeJS.Timeout } | undefined;

  constructor(
    private readonly reactor: Reactor,
    private readonly id: number,
    readonly handler: TransportHandler,
    private readonly address: SocketAddress,
  ) {}

  opened(timeoutMs: number): Promise<Transport> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.connecting = undefined;
        this.shut();
        reject(new TransportError('timeout expired while connecting', 'ETIMEDOUT'));
      }, timeoutMs);
      this.connecting = { resolve, reject, timer };
    });
  }

  write(buffer: Buffer, start: number, end: number): boolean {
    if (!this.open) return true;
    const waiting = this.reactor.addon.write(this.id, buffer, start, end);
    if (waiting < 0) {
      // The socket failed under the write: the connection is over, as when a read fails.
      this.failed(-waiting);
      return true;
    }
    this.waiting = waiting > 0;
    // Bytes may wait briefly at any time; only a backlog should slow the caller down.
    return waiting < 1 << 20;
  }

  drained(): Promise<void> {
    if (!this.waiting || !this.open) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /**
   * Turns this connection into TLS in the reactor, after the protocol's plaintext TLS request
   * (see native/reactor.c for why here). `host` is what verify-full checks the certificate
   * against; only for contexts nativeTlsContext() could build (tls-transport.ts decides).
   */
  upgrade(context: TlsContext, host: string, where: string, timeoutMs: number): Promise<TlsSession> {
    const handle = nativeTlsContext(this.reactor.addon, context);
    if (!this.open || handle === null) return Promise.reject(new TransportError('the connection cannot start TLS here', undefined));
    // SNI takes a name, never an address (RFC 6066, 3).
    const started = this.reactor.addon.startTls(this.id, handle, net.isIP(host) === 0 ? host : '');
    if (started < 0) {
      this.shut();
      return Promise.reject(tlsFailure(new Error(`cannot start TLS: ${errnoName(-started)}`), where, context.settings));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.handshake = undefined;
        this.shut();
        reject(new TransportError('timeout expired while connecting', 'ETIMEDOUT'));
      }, timeoutMs);
      this.handshake = { context, host, where, resolve, reject, timer };
    });
  }

  tlsReady(): void {
    const pending = this.settleHandshake();
    if (!pending) return;
    try {
      this.session = checkedSession(this.reactor.addon.tlsSession(this.id), pending.context, pending.host, pending.where);
    } catch (error) {
      this.shut();
      pending.reject(error as Error);
      return;
    }
    this.kind = 'tls';
    pending.resolve(this.session);
  }

  close(last?: Buffer): void {
    if (!this.open) return;
    // A send(2) that the kernel took is delivered even when the socket is closed right after.
    if (last) this.reactor.addon.write(this.id, last, 0, last.length);
    this.shut();
  }

  connected(): void {
    const pending = this.connecting;
    if (!pending) return;
    this.connecting = undefined;
    clearTimeout(pending.timer);
    pending.resolve(this);
  }

  failed(errno: number): void {
    const pending = this.connecting;
    if (pending) {
      this.connecting = undefined;
      clearTimeout(pending.timer);
      this.shut();
      pending.reject(connectError(errno, this.address));
      return;
    }
    const name = errnoName(errno);
    const why = errno === TLS_FAILED && this.open ? this.reactor.addon.tlsError(this.id) : '';
    const handshake = this.settleHandshake();
    if (handshake) {
      this.shut();
      handshake.reject(tlsFailure(new Error(why || `connection error: ${name}`), handshake.where, handshake.context.settings));
      return;
    }
    this.ended(new TransportError(`connection error: ${why || name}`, name));
  }

  ended(error: TransportError | undefined): void {
    if (!this.open) return;
    const handshake = this.settleHandshake();
    if (handshake) {
      this.shut();
      handshake.reject(tlsFailure(new Error('the server closed the connection during the TLS handshake'), handshake.where, handshake.context.settings));
      return;
    }
    this.shut();
    this.handler.onClose(error);
  }

  drainedNow(): void {
    this.waiting = false;
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }

  private settleHandshake(): Handshake | undefined {
    const pending = this.handshake;
    if (pending) clearTimeout(pending.timer);
    this.handshake = undefined;
    return pending;
  }

  private shut(): void {
    if (!this.open) return;
    this.open = false;
    this.reactor.forget(this.id);
    this.drainedNow();
  }
}

function connectError(errno: number, address: SocketAddress): TransportError {
  const name = errnoName(errno);
  return new TransportError(`connect ${name} ${describeAddress(address)}`, name, 'path' in address ? undefined : address.host);
}
