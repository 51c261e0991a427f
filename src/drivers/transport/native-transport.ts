import { createRequire } from 'node:module';
import { TransportError, errnoName, describeAddress, type SocketAddress, type Transport, type TransportHandler } from './transport.js';

/** The compiled native/reactor.c (built by `npm install` into build/Release; see scripts/build-native.mjs). */
interface ReactorAddon {
  init(onEvents: (count: number) => void, input: Buffer, events: Int32Array): void;
  connectTcp(address: string, port: number, ipv6: boolean): number;
  connectUnix(path: string): number;
  write(id: number, buffer: Buffer, start: number, end: number): number;
  close(id: number): void;
}

const DATA = 0;
const CONNECTED = 1;
const ERROR = 2;
const EOF = 3;
const DRAINED = 4;

/** Shared input: one batch of reads lands here (each socket's slice is capped in the addon). */
const INPUT_BYTES = 1 << 20;
const MAX_EVENTS = 1024;

let addon: ReactorAddon | undefined | null;

/** The addon, loaded once per thread; null when it is not built or this is not Linux. */
export function loadReactor(): ReactorAddon | null {
  if (addon !== undefined) return addon;
  if (process.platform !== 'linux') return (addon = null);
  try {
    const require = createRequire(import.meta.url);
    addon = require('../../../../build/Release/headroom_reactor.node') as ReactorAddon;
  } catch {
    addon = null;
  }
  return addon;
}

let reactor: Reactor | undefined;

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

  constructor(readonly addon: ReactorAddon) {
    addon.init((count) => this.dispatch(count), this.input, this.events);
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
      }
    }
  }
}

class NativeSocket implements Transport {
  readonly kind = 'native';
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
    this.ended(new TransportError(`connection error: ${name}`, name));
  }

  ended(error: TransportError | undefined): void {
    if (!this.open) return;
    this.shut();
    this.handler.onClose(error);
  }

  drainedNow(): void {
    this.waiting = false;
    for (const resolve of this.drainWaiters.splice(0)) resolve();
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
  return new TransportError(`connect ${name} ${describeAddress(address)}`, name);
}
