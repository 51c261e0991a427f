import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { ServerTarget } from '../../src/config/target.js';
import type { Connection, Driver } from '../../src/drivers/driver.js';
import { createDriver } from '../../src/drivers/registry.js';
import { Random } from '../../src/common/random.js';
import { chain } from '../../src/workloads/chain/index.js';
import { modelUnit } from '../../src/workloads/chain/model-unit.js';
import { freshDatabase } from '../helpers/databases.js';

/** One frontend message as the server received it: its type letter and, for Parse and Bind, the statement name and text. */
interface Message {
  type: string;
  statement?: string;
  sql?: string;
}

/**
 * A TCP relay between headroom's PostgreSQL client and the real server that reads both directions
 * as they pass: the client's messages (after its startup) and the status byte of every
 * ReadyForQuery the server sends (I idle, T in a transaction, E failed transaction).
 */
class Relay {
  readonly sent: Message[] = [];
  readonly ready: string[] = [];
  private fromClient = Buffer.alloc(0);
  private fromServer = Buffer.alloc(0);
  private startupDone = false;

  static async start(t: TestContext, target: ServerTarget): Promise<{ relay: Relay; port: number }> {
    let relay!: Relay;
    const sockets = new Set<net.Socket>();
    const server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      sockets.add(client).add(upstream);
      client.on('data', (chunk) => {
        relay.clientBytes(chunk);
        upstream.write(chunk);
      });
      upstream.on('data', (chunk) => {
        relay.serverBytes(chunk);
        client.write(chunk);
      });
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    relay = new Relay();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // Runs before the connection's own cleanup: the relay's sockets go first, so close() does not wait for them.
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      server.close();
    });
    return { relay, port: (server.address() as net.AddressInfo).port };
  }

  /** Forgets what passed so far. */
  clear(): void {
    this.sent.length = 0;
    this.ready.length = 0;
  }

  /** The client's messages cut into requests, each ending at its Sync (one ReadyForQuery each). */
  requests(): Message[][] {
    const requests: Message[][] = [[]];
    for (const message of this.sent) {
      requests.at(-1)!.push(message);
      if (message.type === 'S') requests.push([]);
    }
    if (requests.at(-1)!.length === 0) requests.pop();
    return requests;
  }

  clientBytes(chunk: Buffer): void {
    this.fromClient = Buffer.concat([this.fromClient, chunk]);
    if (!this.startupDone) {
      // The startup message (and an SSLRequest before it) has no type byte.
      while (this.fromClient.length >= 8) {
        const length = this.fromClient.readInt32BE(0);
        const code = this.fromClient.readInt32BE(4);
        this.fromClient = this.fromClient.subarray(length);
        if (code === 196608) {
          this.startupDone = true;
          break;
        }
      }
    }
    while (this.startupDone && this.fromClient.length >= 5) {
      const length = this.fromClient.readInt32BE(1);
      if (this.fromClient.length < 1 + length) return;
      const type = String.fromCharCode(this.fromClient[0]!);
      const body = this.fromClient.subarray(5, 1 + length);
      this.fromClient = this.fromClient.subarray(1 + length);
      if (type === 'p') continue; // a password answer
      if (type === 'P') {
        const nameEnd = body.indexOf(0);
        this.sent.push({ type, statement: body.toString('utf8', 0, nameEnd), sql: body.toString('utf8', nameEnd + 1, body.indexOf(0, nameEnd + 1)) });
      } else if (type === 'B') {
        const portalEnd = body.indexOf(0);
        this.sent.push({ type, statement: body.toString('utf8', portalEnd + 1, body.indexOf(0, portalEnd + 1)) });
      } else if (type === 'Q') {
        this.sent.push({ type, sql: body.toString('utf8', 0, body.length - 1) });
      } else this.sent.push({ type });
    }
  }

  serverBytes(chunk: Buffer): void {
    this.fromServer = Buffer.concat([this.fromServer, chunk]);
    // The server's first byte may be the answer to SSLRequest, which has no length.
    if (this.fromServer.length > 0 && (this.fromServer[0] === 0x4e || this.fromServer[0] === 0x53) && this.ready.length === 0 && !this.startupDone) {
      this.fromServer = this.fromServer.subarray(1);
    }
    while (this.fromServer.length >= 5) {
      const length = this.fromServer.readInt32BE(1);
      if (this.fromServer.length < 1 + length) return;
      if (this.fromServer[0] === 0x5a) this.ready.push(String.fromCharCode(this.fromServer[5]!));
      this.fromServer = this.fromServer.subarray(1 + length);
    }
  }
}

/** A connection to a fresh database through the relay. */
async function relayed(t: TestContext): Promise<{ relay: Relay; driver: Driver; conn: Connection } | undefined> {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return undefined;
  const target = db.target as ServerTarget;
  const { relay, port } = await Relay.start(t, target);
  const driver = createDriver({ ...target, host: '127.0.0.1', port, tls: { mode: 'disable', modeSource: 'test' } });
  const conn = await driver.connect();
  t.after(async () => {
    await conn.close();
    await db.dispose();
  });
  return { relay, driver, conn };
}

const kinds = (request: Message[]): string => request.map((m) => m.type).join('');

test('postgres: queryUnnamed and commitNamed send what pgJDBC sends, as the server receives it', async (t) => {
  const fresh = await relayed(t);
  if (!fresh) return;
  const { relay, conn } = fresh;
  relay.clear();

  // BEGIN ahead of the query: Parse, Bind, Execute of BEGIN, then the query's Parse, Bind, Describe, Execute, one Sync.
  assert.deepEqual(await conn.queryUnnamed!("select 7 as n, 'x' as s", true), [[7, 'x']]);
  await conn.queryUnnamed!('select 1 from pg_class where false', false);
  await conn.commitNamed!();
  await conn.commitNamed!();
  await conn.queryUnnamed!('select 2', false);
  const [first, second, commit1, commit2, outside, ...rest] = relay.requests();
  assert.equal(rest.length, 0);
  assert.equal(kinds(first!), 'PBEPBDES');
  assert.deepEqual(
    first!.filter((m) => m.type === 'P').map((m) => [m.statement, m.sql]),
    [
      ['', 'BEGIN'],
      ['', "select 7 as n, 'x' as s"],
    ],
    'both through the unnamed statement',
  );
  assert.ok(
    first!.filter((m) => m.type === 'B').every((m) => m.statement === ''),
    'bound to the unnamed statement',
  );
  assert.equal(kinds(second!), 'PBDES');
  assert.equal(second![0]!.statement, '');
  // COMMIT: parsed under a name with its first execution, then only bound and executed.
  assert.equal(kinds(commit1!), 'PBES');
  assert.equal(commit1![0]!.sql, 'COMMIT');
  assert.notEqual(commit1![0]!.statement, '');
  assert.equal(kinds(commit2!), 'BES');
  assert.equal(commit2![0]!.statement, commit1![0]!.statement);
  assert.equal(kinds(outside!), 'PBDES');
  // The server's word: in a transaction after the first two, idle after each COMMIT, and outside one without BEGIN.
  assert.deepEqual(relay.ready, ['T', 'T', 'I', 'I', 'I']);
  assert.equal(relay.sent.filter((m) => m.type === 'Q').length, 0, 'no simple Query message');
});

test('postgres: chain --statements study sends the joins through the unnamed statement, BEGIN in the first one, COMMIT named', async (t) => {
  const fresh = await relayed(t);
  if (!fresh) return;
  const { relay, driver, conn } = fresh;
  const scale = 0.0002;
  await chain.load({ conn, driver, dbms: 'postgres', scale, options: { load: 'bulk' }, log: () => {} });
  // One operation per client, so that every unit updates one (step 4).
  await conn.query('INSERT INTO operation (summa, client_id, op_time) SELECT 1, id, CURRENT_TIMESTAMP FROM client');
  const unit = await modelUnit.prepare(conn, {
    terminal: 0,
    terminals: 1,
    transactionsPerTerminal: 3,
    scale,
    dbms: 'postgres',
    random: new Random(7),
    options: { mode: 'distributed', statements: 'study' },
    protocol: 'prepared',
    seed: 7,
  });
  const units: Message[][][] = [];
  for (let i = 0; i < 3; i++) {
    relay.clear();
    await unit();
    units.push(relay.requests());
    assert.deepEqual(relay.ready, ['T', 'T', 'T', 'T', 'I'], `unit ${i + 1}: one ReadyForQuery per request, the transaction open until COMMIT`);
  }
  for (const [i, requests] of units.entries()) {
    assert.deepEqual(
      requests.map(kinds),
      ['PBEPBDES', 'PBDES', 'BES', 'BES', i === 0 ? 'PBES' : 'BES'],
      `unit ${i + 1}: BEGIN with the first join, the second join, update, insert, COMMIT`,
    );
    const [readClient, readOperations] = requests;
    assert.deepEqual([readClient![0]!.statement, readClient![0]!.sql], ['', 'BEGIN']);
    assert.equal(readClient![3]!.statement, '');
    assert.match(readClient![3]!.sql!, /^select \* from client c left join address a on c\.address_id=a\.id .* where c\.id=\d+$/);
    assert.equal(readOperations![0]!.statement, '');
    assert.match(
      readOperations![0]!.sql!,
      /^select o\.id, o\.\*, c\.\*, a\.\*, s\.\*, ci\.\*, co\.\* from operation o .* where c\.id=\d+ order by o\.id desc limit 100$/,
    );
    // Update and insert: named statements prepared before the first unit.
    assert.ok(requests[2]![0]!.statement !== '' && requests[3]![0]!.statement !== '' && requests[2]![0]!.statement !== requests[3]![0]!.statement);
  }
  assert.equal(units[0]![4]![0]!.sql, 'COMMIT');
  assert.equal(units[2]![4]![0]!.statement, units[0]![4]![0]!.statement, 'COMMIT is parsed once and bound after');
});
