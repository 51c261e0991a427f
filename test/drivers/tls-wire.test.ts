import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { constants, createHash, generateKeyPairSync, privateDecrypt, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { MariadbWire } from '../../src/drivers/mariadb/wire/connection.js';
import { WireConnection } from '../../src/drivers/postgres/wire/connection.js';
import { TlsContext, type TlsSettings } from '../../src/drivers/transport/tls.js';
import { makeCertificates, opensslUnavailable, type TestCertificates } from '../helpers/tls-certificates.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

/**
 * What no server on this machine can show, against small servers written here from the protocol
 * documents: PostgreSQL 17's direct TLS (sslnegotiation=direct, ALPN "postgresql"), and MySQL's
 * caching_sha2_password full authentication (MariaDB 10.11 has no server side of it).
 */

function listen(t: TestContext, server: net.Server): Promise<number> {
  t.after(() => server.close());
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

function certificates(t: TestContext): TestCertificates | undefined {
  if (skipOrFail(t, opensslUnavailable())) return undefined;
  const certs = makeCertificates('unused');
  t.after(() => certs.remove());
  return certs;
}

test('postgres sslnegotiation=direct: TLS from the first byte, with ALPN "postgresql"', async (t) => {
  const certs = certificates(t);
  if (!certs) return;
  let alpn: string | false | null = null;
  let startupUser = '';
  const server = tls.createServer({ key: readFileSync(certs.server.key), cert: readFileSync(certs.server.cert), ALPNProtocols: ['postgresql'] }, (socket) => {
    alpn = socket.alpnProtocol;
    socket.once('data', (startup) => {
      startupUser = startup.toString('utf8', 8).split('\0')[1]!;
      // AuthenticationOk, then ReadyForQuery (idle).
      socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49]));
    });
  });
  const port = await listen(t, server);
  const settings: TlsSettings = { mode: 'verify-full', modeSource: 'sslmode', rootCert: certs.ca, direct: true };
  const conn = await WireConnection.connect({
    host: '127.0.0.1',
    port,
    user: 'direct_user',
    password: undefined,
    database: 'db',
    applicationName: 'test',
    connectTimeoutMs: 5000,
    tls: new TlsContext(settings),
  });
  assert.equal(alpn, 'postgresql');
  assert.equal(startupUser, 'direct_user');
  assert.equal(conn.tls?.protocol, 'TLSv1.3');
  await conn.close();
});

/** A MySQL 8 server's side of caching_sha2_password, from MySQL's protocol documentation, with nothing cached. */
function fakeMysql(password: string, certs: TestCertificates | undefined): { server: net.Server; publicKey: string; log: string[] } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const log: string[] = [];
  const server = net.createServer((plain) => {
    const nonce = randomBytes(20);
    for (let i = 0; i < 20; i++) nonce[i] = (nonce[i]! % 94) + 33; // printable, no NUL, as MySQL's are
    let socket: net.Socket = plain;
    let pending = Buffer.alloc(0);
    let step = 'response';
    const send = (sequence: number, payload: Buffer): void => {
      const head = Buffer.from([payload.length & 0xff, (payload.length >> 8) & 0xff, payload.length >> 16, sequence]);
      socket.write(Buffer.concat([head, payload]));
    };
    const ok = (sequence: number): void => {
      step = 'done';
      send(sequence, Buffer.from([0, 0, 0, 2, 0, 0, 0]));
    };
    const caps = 1 | 512 | 32768 | (1 << 19) | (1 << 21) | (certs ? 2048 : 0); // LONG_PASSWORD, PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH, LENENC_DATA, SSL
    const greeting = Buffer.concat([
      Buffer.from([10]),
      Buffer.from('8.0.36-fake\0'),
      Buffer.from([1, 0, 0, 0]),
      nonce.subarray(0, 8),
      Buffer.from([0, caps & 0xff, (caps >> 8) & 0xff, 45, 2, 0, (caps >> 16) & 0xff, (caps >> 24) & 0xff, 21]),
      Buffer.alloc(10),
      nonce.subarray(8),
      Buffer.from('\0caching_sha2_password\0'),
    ]);
    const onPacket = (sequence: number, payload: Buffer): void => {
      if (step === 'done') return; // COM_QUIT
      if (step === 'response') {
        const clientCaps = payload.readUInt32LE(0);
        if (clientCaps & 2048 && payload.length === 32) {
          log.push('ssl request');
          plain.removeAllListeners('data');
          // The ClientHello may have come in the same read: TLSSocket takes what the socket holds
          // (paused first, or the flowing socket would hand it straight back to no listener).
          plain.pause();
          if (pending.length > 0) plain.unshift(pending);
          pending = Buffer.alloc(0);
          // STARTTLS as servers do it: a tls.Server takes the socket over.
          const starter = tls.createServer({ key: readFileSync(certs!.server.key), cert: readFileSync(certs!.server.cert) }, (secure) => {
            socket = secure;
            secure.on('data', onData);
          });
          starter.on('tlsClientError', (error) => log.push(`tls error: ${error.message}`));
          starter.emit('connection', plain);
          return;
        }
        // Fast authentication: SHA256(scramble XOR SHA256(SHA256(SHA256(password)) + nonce)) must be SHA256(SHA256(password)).
        const user = payload.toString('utf8', 32, payload.indexOf(0, 32));
        const at = payload.indexOf(0, 32) + 1;
        const scramble = payload.subarray(at + 1, at + 1 + payload[at]!);
        const stored = createHash('sha256').update(createHash('sha256').update(password).digest()).digest();
        const mask = createHash('sha256').update(stored).update(nonce).digest();
        const stage1 = Buffer.from(scramble.map((b, i) => b ^ mask[i]!));
        log.push(`fast ${user} ${createHash('sha256').update(stage1).digest().equals(stored) ? 'right' : 'wrong'}`);
        step = 'full';
        return send(sequence + 1, Buffer.from([1, 4])); // nothing cached: perform full authentication
      }
      if (step === 'full' && payload.length === 1 && payload[0] === 2) {
        log.push('public key asked');
        return send(sequence + 1, Buffer.concat([Buffer.from([1]), Buffer.from(publicKey)]));
      }
      if (socket !== plain) {
        log.push(`cleartext ${payload.toString('utf8') === `${password}\0` ? 'right' : 'wrong'}`);
        return ok(sequence + 1);
      }
      let decrypted: Buffer;
      try {
        decrypted = privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING }, payload);
      } catch {
        log.push('rsa undecryptable');
        return ok(sequence + 1);
      }
      const plainPassword = Buffer.from(decrypted.map((b, i) => b ^ nonce[i % 20]!));
      log.push(`rsa ${plainPassword.toString('utf8') === `${password}\0` ? 'right' : 'wrong'}`);
      ok(sequence + 1);
    };
    const onData = (chunk: Buffer): void => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4) {
        const length = pending[0]! | (pending[1]! << 8) | (pending[2]! << 16);
        if (pending.length < 4 + length) return;
        const payload = pending.subarray(4, 4 + length);
        const sequence = pending[3]!;
        pending = pending.subarray(4 + length);
        onPacket(sequence, payload);
      }
    };
    plain.on('data', onData);
    plain.on('error', () => {});
    send(0, greeting);
  });
  return { server, publicKey, log };
}

test("mariadb caching_sha2_password full authentication: the server's RSA key without TLS, the password over TLS", async (t) => {
  const password = 'sha2 pässword';
  const plain = fakeMysql(password, undefined);
  const port = await listen(t, plain.server);
  const options = { host: '127.0.0.1', port, user: 'sha2_user', password, database: '', connectTimeoutMs: 5000 };
  const asked = (settings: Partial<TlsSettings>): TlsContext => new TlsContext({ mode: 'disable', modeSource: 'test', ...settings });

  // Asking the server for its key (get-server-public-key=true).
  const fetched = await MariadbWire.connect({ ...options, tls: asked({ getServerPublicKey: true }) });
  await fetched.close();
  assert.deepEqual(plain.log.splice(0), ['fast sha2_user right', 'public key asked', 'rsa right']);
  // The key from a file (server-public-key-path): no request.
  const given = await MariadbWire.connect({ ...options, serverPublicKey: plain.publicKey });
  await given.close();
  assert.deepEqual(plain.log.splice(0), ['fast sha2_user right', 'rsa right']);
  // Neither: refused in one line saying what would do.
  const refused = await MariadbWire.connect(options).then(
    () => assert.fail('full authentication went ahead without TLS or a key'),
    (e: Error & { code?: string; hint?: string }) => e,
  );
  assert.equal(refused.code, 'CACHING_SHA2_FULL_AUTH');
  assert.match(refused.hint ?? '', /\?ssl=true/);

  const certs = certificates(t);
  if (!certs) return;
  const secure = fakeMysql(password, certs);
  const securePort = await listen(t, secure.server);
  const overTls = await MariadbWire.connect({
    ...options,
    port: securePort,
    tls: new TlsContext({ mode: 'verify-full', modeSource: 'ssl-mode', rootCert: certs.ca }),
  }).catch((error: Error) => {
    throw new Error(`${error.message}; the server saw: ${secure.log.join(', ')}`);
  });
  assert.equal(overTls.tls?.protocol, 'TLSv1.3');
  await overTls.close();
  assert.deepEqual(secure.log, ['ssl request', 'fast sha2_user right', 'cleartext right']);
});
