import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { connectTransport, transportKind } from '../../src/drivers/transport/connect.js';
import { loadReactor, sendRingWanted } from '../../src/drivers/transport/native-transport.js';
import type { SocketAddress, Transport, TransportError, TransportKind } from '../../src/drivers/transport/transport.js';
import { connectFresh } from '../helpers/databases.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

/** Both transports where the reactor is built; CI builds it (npm ci), so there it must be there. */
const KINDS: TransportKind[] = ['node', 'native'];

function useKind(t: TestContext, kind: TransportKind): boolean {
  if (kind === 'native' && !loadReactor() && skipOrFail(t, 'the native reactor is not built: npm run build:native (Linux, python3, make, a C compiler)'))
    return false;
  const before = process.env['HEADROOM_TRANSPORT'];
  process.env['HEADROOM_TRANSPORT'] = kind;
  t.after(() => {
    if (before === undefined) delete process.env['HEADROOM_TRANSPORT'];
    else process.env['HEADROOM_TRANSPORT'] = before;
  });
  assert.equal(transportKind(), kind);
  return true;
}

/** A server that sends back what it receives; resolves with its address once listening. */
async function echoServer(t: TestContext, where: 'tcp' | 'unix'): Promise<{ address: SocketAddress; server: net.Server }> {
  const server = net.createServer((socket) => socket.pipe(socket));
  let address: SocketAddress;
  if (where === 'unix') {
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-transport-'));
    const file = path.join(folder, 'echo.sock');
    await new Promise<void>((resolve) => server.listen(file, resolve));
    address = { path: file };
    t.after(() => rmSync(folder, { recursive: true, force: true }));
  } else {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    address = { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port };
  }
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { address, server };
}

/** Connects and collects what arrives; `closed` resolves when the peer ends the connection. */
async function collecting(
  address: SocketAddress,
): Promise<{ transport: Transport; received: () => Buffer; bytes: () => number; closed: Promise<TransportError | undefined> }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let onClosed!: (error: TransportError | undefined) => void;
  const closed = new Promise<TransportError | undefined>((resolve) => (onClosed = resolve));
  const transport = await connectTransport(
    address,
    {
      // The buffer is the transport's and reused: a copy must be kept.
      onData: (buffer, start, end) => {
        chunks.push(Buffer.from(buffer.subarray(start, end)));
        bytes += end - start;
      },
      onClose: onClosed,
    },
    5_000,
  );
  return { transport, received: () => Buffer.concat(chunks), bytes: () => bytes, closed };
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

for (const kind of KINDS) {
  test(`${kind} transport: bytes arrive whole and in order, both ways, through back-pressure`, async (t) => {
    if (!useKind(t, kind)) return;
    const { address } = await echoServer(t, 'tcp');
    const peer = await collecting(address);
    // 8 MiB in pieces of odd sizes written from one reused buffer: more than the socket buffers
    // take at once, so writes queue and the caller must wait for drained().
    const total = 8 << 20;
    const source = Buffer.alloc(total);
    for (let i = 0; i < total; i++) source[i] = (i * 7 + (i >> 11)) & 0xff;
    const scratch = Buffer.alloc(70_001);
    let sent = 0;
    let waited = 0;
    while (sent < total) {
      const size = Math.min(scratch.length - (sent % 13), total - sent);
      source.copy(scratch, 0, sent, sent + size);
      const more = peer.transport.write(scratch, 0, size);
      // Overwrite the caller's buffer at once: the transport must have kept its own copy.
      scratch.fill(0xee);
      sent += size;
      if (!more) {
        waited++;
        await peer.transport.drained();
      }
    }
    await until(() => peer.bytes() === total, `${total} echoed bytes (got ${peer.bytes()})`);
    assert.equal(createHash('sha256').update(peer.received()).digest('hex'), createHash('sha256').update(source).digest('hex'));
    t.diagnostic(`${kind}: waited for drain ${waited} time(s)`);
    peer.transport.close();
  });

  test(`${kind} transport: Unix-domain sockets, a peer that closes, and a goodbye sent before closing`, async (t) => {
    if (!useKind(t, kind)) return;
    const { address } = await echoServer(t, 'unix');
    const echo = await collecting(address);
    echo.transport.write(Buffer.from('over a unix socket'), 0, 18);
    await until(() => echo.received().toString() === 'over a unix socket', 'the echo');
    echo.transport.close();

    // A server that says hello and hangs up: the client hears the bytes, then the close (no error).
    const hangUp = net.createServer((socket) => socket.end('hello, bye'));
    await new Promise<void>((resolve) => hangUp.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => hangUp.close(() => resolve())));
    const hungUp = await collecting({ host: '127.0.0.1', port: (hangUp.address() as net.AddressInfo).port });
    assert.equal(await hungUp.closed, undefined);
    assert.equal(hungUp.received().toString(), 'hello, bye');

    // close(last): the server gets the last message, then the end of the stream.
    let heard = '';
    const ended = new Promise<void>((resolve) => {
      const listener = net.createServer((socket) => {
        socket.on('data', (d) => (heard += d));
        socket.on('end', resolve);
        socket.on('error', () => resolve());
      });
      listener.listen(0, '127.0.0.1', () => {
        void collecting({ host: '127.0.0.1', port: (listener.address() as net.AddressInfo).port }).then((c) => c.transport.close(Buffer.from('goodbye')));
      });
      t.after(() => new Promise<void>((done) => listener.close(() => done())));
    });
    await ended;
    assert.equal(heard, 'goodbye');
  });

  test(`${kind} transport: a refused connection and an unknown host fail at connect with their codes`, async (t) => {
    if (!useKind(t, kind)) return;
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const refused = await collecting({ host: '127.0.0.1', port }).then(
      () => assert.fail('connected to a closed port'),
      (error: TransportError) => error,
    );
    assert.equal(refused.code, 'ECONNREFUSED', refused.message);
    const unknown = await collecting({ host: 'no-such-host.invalid', port: 5432 }).then(
      () => assert.fail('connected to an unknown host'),
      (error: TransportError) => error,
    );
    assert.ok(unknown.code === 'ENOTFOUND' || unknown.code === 'EAI_AGAIN', `${unknown.code}: ${unknown.message}`);
  });

  test(`${kind} transport: 200 connections answered in the same batches each get their own bytes`, async (t) => {
    if (!useKind(t, kind)) return;
    const { address } = await echoServer(t, 'tcp');
    const peers = await Promise.all(Array.from({ length: 200 }, () => collecting(address)));
    for (let round = 0; round < 20; round++) {
      peers.forEach((p, i) => {
        const message = Buffer.from(`${i}:${round};`);
        p.transport.write(message, 0, message.length);
      });
    }
    const expected = (i: number): string => Array.from({ length: 20 }, (_, round) => `${i}:${round};`).join('');
    await until(() => peers.every((p, i) => p.bytes() === expected(i).length), 'every echo');
    peers.forEach((p, i) => assert.equal(p.received().toString(), expected(i)));
    for (const p of peers) p.transport.close();
  });

  test(`${kind} transport: PostgreSQL and MariaDB results larger than one read, and a large COPY`, async (t) => {
    if (!useKind(t, kind)) return;
    const pg = await connectFresh(t, 'postgres');
    if (!pg) return;
    // About 7 MB of rows: many reads, messages cut at read boundaries and joined again.
    const rows = await pg.conn.query("SELECT g, repeat('x', 50) || g FROM generate_series(1, 100000) AS g");
    assert.equal(rows.length, 100_000);
    assert.deepEqual(rows[99_999], [100_000, `${'x'.repeat(50)}100000`]);
    const big = await pg.conn.prepare("SELECT repeat('y', 3000000) || ?");
    const [[text]] = (await big.all(['!'])) as [[string]];
    assert.equal(text.length, 3_000_001);
    await pg.conn.query('CREATE TABLE copied (id int, payload text)');
    const payload = 'z'.repeat(200);
    assert.equal(
      await pg.conn.bulkInsert(
        'copied',
        ['id', 'payload'],
        (function* () {
          for (let i = 0; i < 50_000; i++) yield [i, payload];
        })(),
      ),
      50_000,
    );
    assert.deepEqual(await pg.conn.query('SELECT count(*)::int, sum(length(payload))::int FROM copied'), [[50_000, 50_000 * 200]]);

    const my = await connectFresh(t, 'mariadb');
    if (!my) return;
    const seq = await my.conn.query("SELECT seq, CONCAT(REPEAT('x', 50), seq) FROM seq_1_to_100000");
    assert.equal(seq.length, 100_000);
    assert.deepEqual(seq[99_999], [100_000n, `${'x'.repeat(50)}100000`]);
    const wide = await my.conn.prepare("SELECT CONCAT(REPEAT('y', 3000000), ?)");
    const [[wideText]] = (await wide.all(['!'])) as [[string]];
    assert.equal(wideText.length, 3_000_001);
  });
}

/**
 * Connections that each write their next message from inside the handler of the echo of their
 * last (as a terminal writes its next request while its answer is handled): what each server
 * socket received, in order, up to the goodbye written with close() from inside a handler too.
 * Every 7th message is 100 KB, more than a request, so it and what waited before it go at once.
 */
async function pingPong(t: TestContext, connections: number, rounds: number): Promise<void> {
  const heard: string[] = Array.from({ length: connections }, () => '');
  const ended: Promise<void>[] = [];
  const server = net.createServer((socket) => {
    let index = -1;
    ended.push(
      new Promise<void>((resolve) => {
        socket.on('end', resolve);
        socket.on('error', () => resolve());
      }),
    );
    socket.on('data', (d: Buffer) => {
      if (index < 0) index = Number(/^(\d+):/.exec(d.toString('latin1'))![1]);
      heard[index] += d.toString('latin1');
      socket.write(d);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port };
  const message = (i: number, k: number): string => `${i}:${k}${k % 7 === 3 ? 'x'.repeat(100_000) : ''};`;
  const expected = (i: number): string => Array.from({ length: rounds + 1 }, (_, k) => message(i, k)).join('') + `bye ${i}`;
  let finished = 0;
  const transports = await Promise.all(
    Array.from({ length: connections }, async (_, i) => {
      let echoes = 0;
      let next = 1;
      const transport: Transport = await connectTransport(
        address,
        {
          onData: (buffer, start, end) => {
            for (let at = start; at < end; at++) if (buffer[at] === 0x3b) echoes++;
            // Each whole echo: the next message (every fifth time two), written in this handler.
            while (echoes >= next && next <= rounds) {
              const burst = next % 5 === 0 && next < rounds ? 2 : 1;
              for (let j = 0; j < burst; j++) {
                const m = Buffer.from(message(i, next++));
                transport.write(m, 0, m.length);
              }
            }
            if (echoes === rounds + 1) {
              transport.close(Buffer.from(`bye ${i}`));
              finished++;
            }
          },
          onClose: () => {},
        },
        5_000,
      );
      const first = Buffer.from(message(i, 0));
      transport.write(first, 0, first.length);
      return transport;
    }),
  );
  await until(() => finished === connections && ended.length === connections, `${connections} goodbyes (${finished} so far)`, 30_000);
  await Promise.all(ended);
  heard.forEach((text, i) => assert.equal(text, expected(i), `connection ${i}`));
  for (const transport of transports) transport.close();
}

for (const kind of KINDS) {
  test(`${kind} transport: messages written while answers are handled arrive whole and in order, and a goodbye after them`, async (t) => {
    if (!useKind(t, kind)) return;
    await pingPong(t, 100, 40);
  });

  test(`${kind} transport: a write to a connection the peer reset while answers were handled ends it with the error`, async (t) => {
    if (!useKind(t, kind)) return;
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => {
      sockets.push(socket);
      socket.on('data', (d) => socket.write(d));
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port };
    const victim = await collecting(address);
    await until(() => sockets.length === 1, 'the first connection accepted');
    let wrote = false;
    const trigger = await connectTransport(
      address,
      {
        onData: () => {
          // In the handler: the server resets the other connection (its RST is there at once on
          // loopback), then the handler writes to it.
          sockets[0]!.resetAndDestroy();
          victim.transport.write(Buffer.from('after the reset'), 0, 15);
          wrote = true;
        },
        onClose: () => {},
      },
      5_000,
    );
    trigger.write(Buffer.from('go'), 0, 2);
    const error = await Promise.race([victim.closed, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5_000))]);
    assert.ok(wrote, 'the handler ran');
    if (error === 'hung') assert.fail('the reset connection was never reported closed');
    t.diagnostic(`${kind}: closed with ${error?.code ?? 'no error'}`);
    assert.ok(error === undefined || ['ECONNRESET', 'EPIPE'].includes(error.code ?? ''), `closed with ${error?.code}: ${error?.message}`);
    trigger.close();
  });
}

test('native transport: a batch of requests goes to the kernel in one io_uring_enter where io_uring can be used, one send(2) each where not', async (t) => {
  if (!useKind(t, 'native')) return;
  const addon = loadReactor()!;
  // On: the default, unless HEADROOM_IO_URING=off. The state says whether this kernel let it be used.
  await pingPong(t, 20, 30);
  const state = addon.sendRing();
  t.diagnostic(`send ring state after the run: ${state} (1 on, 2 off)`);
  if (sendRingWanted()) {
    const unusable =
      state === 2 ? 'io_uring cannot be used here (kernel before 5.6, seccomp, or kernel.io_uring_disabled): batches were sent one by one' : undefined;
    if (skipOrFail(t, unusable)) return;
    assert.equal(state, 1);
  }
  // Off, as HEADROOM_IO_URING=off asks: the same traffic, one send(2) per request.
  assert.equal(addon.sendRing(false), 2);
  t.after(() => void addon.sendRing(sendRingWanted()));
  await pingPong(t, 20, 30);
  assert.equal(addon.sendRing(), 2);
});

test('HEADROOM_IO_URING: on or off, anything else refused in one line', () => {
  assert.equal(sendRingWanted({}), true);
  assert.equal(sendRingWanted({ HEADROOM_IO_URING: 'on' }), true);
  assert.equal(sendRingWanted({ HEADROOM_IO_URING: 'off' }), false);
  assert.throws(() => sendRingWanted({ HEADROOM_IO_URING: 'no' }), /^UserError: HEADROOM_IO_URING=no is neither on nor off$/);
});

test('native transport: each worker thread gets a reactor of its own', async (t) => {
  if (!useKind(t, 'native')) return;
  const { address } = await echoServer(t, 'tcp');
  if ('path' in address) return;
  const module = new URL('../../src/drivers/transport/connect.js', import.meta.url).href;
  // Two threads at once, each with its own connections, plus this one.
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.module).then(async ({ connectTransport }) => {
      let got = '';
      const t = await connectTransport({ host: '127.0.0.1', port: workerData.port }, { onData: (b, s, e) => { got += b.toString('utf8', s, e); if (got === 'ping from ' + workerData.name) { t.close(); parentPort.postMessage(got); } }, onClose: () => {} }, 5000);
      const m = Buffer.from('ping from ' + workerData.name);
      t.write(m, 0, m.length);
    });`;
  const run = (name: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const worker = new Worker(source, {
        eval: true,
        workerData: { module, port: address.port, name },
        env: { ...process.env, HEADROOM_TRANSPORT: 'native' },
      });
      worker.once('message', (m: string) => {
        resolve(m);
        void worker.terminate();
      });
      worker.once('error', reject);
    });
  const local = await collecting(address);
  local.transport.write(Buffer.from('main'), 0, 4);
  assert.deepEqual(await Promise.all([run('one'), run('two')]), ['ping from one', 'ping from two']);
  await until(() => local.received().toString() === 'main', 'the main thread echo');
  local.transport.close();
});
