import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { UserError } from '../../errors.js';
import { connectNative, loadReactor } from './native-transport.js';
import { connectNode } from './node-transport.js';
import { TransportError, type SocketAddress, type Transport, type TransportHandler, type TransportKind } from './transport.js';

const KINDS: readonly TransportKind[] = ['native', 'node'];

/**
 * Which transport this process uses: HEADROOM_TRANSPORT=native|node when set (benchmarks compare
 * the two), else the native reactor where it is built, else Node's sockets.
 */
export function transportKind(env: NodeJS.ProcessEnv = process.env): TransportKind {
  const asked = env['HEADROOM_TRANSPORT'];
  if (asked === undefined || asked === '') return loadReactor() ? 'native' : 'node';
  if (!(KINDS as readonly string[]).includes(asked))
    throw new UserError(`HEADROOM_TRANSPORT=${asked} is not a transport`, `use ${KINDS.join(' or ')}, or leave it unset`);
  if (asked === 'native' && !loadReactor()) {
    throw new UserError(
      'HEADROOM_TRANSPORT=native, but the native reactor is not built',
      'run npm run build:native (Linux, with python3, make and a C compiler), or leave HEADROOM_TRANSPORT unset',
    );
  }
  return asked as TransportKind;
}

/** Opens a byte stream to a server: a TCP host and port, or a Unix-domain socket path. */
export async function connectTransport(address: SocketAddress, handler: TransportHandler, timeoutMs: number): Promise<Transport> {
  if (transportKind() === 'node') return connectNode(address, handler, timeoutMs);
  if ('path' in address) return connectNative(address, false, handler, timeoutMs);
  const family = net.isIP(address.host);
  if (family !== 0) return connectNative(address, family === 6, handler, timeoutMs);
  let resolved: { address: string; family: number };
  try {
    resolved = await lookup(address.host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TransportError(`getaddrinfo ${code ?? 'failed'} ${address.host}`, code);
  }
  return connectNative({ host: resolved.address, port: address.port }, resolved.family === 6, handler, timeoutMs);
}
