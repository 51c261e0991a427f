import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { ServerTarget } from '../../src/config/target.js';
import type { Connection, Driver } from '../../src/drivers/driver.js';
import { createDriver } from '../helpers/drivers.js';
import { Random } from '../../src/common/random.js';
import { chain } from '../../src/workloads/chain/index.js';
import { modelUnit } from '../../src/workloads/chain/model-unit.js';
import { freshDatabase } from '../helpers/databases.js';

/**
 * One frontend message as the server received it: its type letter; for Parse and Bind the
 * statement name, for Parse its text and declared parameter type OIDs, for Describe and Close
 * what they name ('S' statement, 'P' portal) in `target`.
 */
interface Message {
  type: string;
  statement?: string;
  sql?: string;
  oids?: number[];
  target?: string;
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
        const sqlEnd = body.indexOf(0, nameEnd + 1);
        const oids = Array.from({ length: body.readInt16BE(sqlEnd + 1) }, (_, i) => body.readInt32BE(sqlEnd + 3 + 4 * i));
        this.sent.push({ type, statement: body.toString('utf8', 0, nameEnd), sql: body.toString('utf8', nameEnd + 1, sqlEnd), oids });
      } else if (type === 'D' || type === 'C') {
        this.sent.push({ type, target: String.fromCharCode(body[0]!), statement: body.toString('utf8', 1, body.indexOf(0, 1)) });
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
  for (let i = 0; i < 6; i++) {
    relay.clear();
    await unit();
    units.push(relay.requests());
    assert.deepEqual(relay.ready, ['T', 'T', 'T', 'T', 'I'], `unit ${i + 1}: one ReadyForQuery per request, the transaction open until COMMIT`);
  }
  for (const [i, requests] of units.entries()) {
    // pgJDBC's prepareThreshold=5: update and insert unnamed 4 times, named at the 5th (the insert,
    // whose timestamp's type is left to the server, with Describe statement instead of portal), then only bound.
    const [update, insert] = i < 4 ? ['PBDES', 'PBDES'] : i === 4 ? ['PBDES', 'PDBES'] : ['BES', 'BES'];
    assert.deepEqual(
      requests.map(kinds),
      ['PBEPBDES', 'PBDES', update, insert, i === 0 ? 'PBES' : 'BES'],
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
    const [updateName, insertName] = [requests[2]![0]!.statement, requests[3]![0]!.statement];
    if (i < 4) assert.deepEqual([updateName, insertName], ['', ''], `unit ${i + 1}: update and insert through the unnamed statement`);
    else assert.ok(updateName !== '' && insertName !== '' && updateName !== insertName, `unit ${i + 1}: update and insert named`);
    if (i <= 4) {
      // The types the study's setters declare: setInt, setLong; setInt, setInt, setTimestamp (left to the server).
      assert.deepEqual(requests[2]![0]!.oids, [23, 20]);
      assert.deepEqual(requests[3]![0]!.oids, [23, 23, 0]);
    }
  }
  assert.equal(units[5]![2]![0]!.statement, units[4]![2]![0]!.statement, 'the update bound by the name it got at the 5th');
  assert.deepEqual(
    units[4]![3]!.filter((m) => m.type === 'D').map((m) => [m.target, m.statement]),
    [['S', units[4]![3]![0]!.statement]],
    "the insert's naming write describes the statement",
  );
  assert.equal(units[0]![4]![0]!.sql, 'COMMIT');
  assert.equal(units[2]![4]![0]!.statement, units[0]![4]![0]!.statement, 'COMMIT is parsed once and bound after');
});

/** Named prepared statements the server holds for `conn`'s session. */
async function namedOnServer(conn: Connection): Promise<number> {
  return Number((await conn.query('SELECT count(*) FROM pg_prepared_statements'))[0]![0]);
}

test('postgres: prepareAtThreshold sends unnamed until the threshold, names the statement at it, then only binds', async (t) => {
  const fresh = await relayed(t);
  if (!fresh) return;
  const { relay, conn } = fresh;
  await conn.query('CREATE TABLE t (id int PRIMARY KEY, n bigint, at timestamp)');
  await conn.query('INSERT INTO t SELECT g, 0, NULL FROM generate_series(1, 10) g');
  const update = conn.prepareAtThreshold!('UPDATE t SET n = n + ? WHERE id = ?', 5, ['integer', 'bigint']);
  const insert = conn.prepareAtThreshold!('INSERT INTO t VALUES (?, ?, ?)', 5, ['integer', 'integer', 'unspecified']);
  const read = conn.prepareAtThreshold!('SELECT id, n FROM t WHERE id <= ? ORDER BY id', 3, ['integer']);
  assert.equal(await namedOnServer(conn), 0, 'nothing sent before the first execution');
  for (let i = 1; i <= 4; i++) {
    relay.clear();
    assert.equal(await update.run([i, 1]), 1);
    assert.equal(await insert.run([100 + i, i, new Date(Date.UTC(2024, 0, i))]), 1);
    const [u, ins] = relay.requests();
    assert.deepEqual([kinds(u!), kinds(ins!)], ['PBDES', 'PBDES'], `execution ${i}: unnamed Parse, Bind, Describe portal, Execute, Sync`);
    assert.deepEqual([u![0]!.statement, u![1]!.statement, u![2]!.target], ['', '', 'P']);
    assert.deepEqual(
      [u![0]!.oids, ins![0]!.oids],
      [
        [23, 20],
        [23, 23, 0],
      ],
    );
  }
  assert.equal(await namedOnServer(conn), 0, 'after 4 executions: none named');
  relay.clear();
  await update.run([5, 1]);
  const [u5] = relay.requests();
  assert.equal(await namedOnServer(conn), 1, 'after the 5th execution of one: it is named');
  relay.clear();
  await insert.run([105, 5, new Date(Date.UTC(2024, 0, 5))]);
  const [ins5] = relay.requests();
  assert.equal(kinds(u5!), 'PBDES');
  assert.notEqual(u5![0]!.statement, '');
  assert.equal(u5![1]!.statement, u5![0]!.statement, 'bound to the name it was parsed under');
  assert.equal(kinds(ins5!), 'PDBES', 'a parameter left to the server: Describe statement ahead of the Bind, no Describe portal');
  assert.deepEqual([ins5![1]!.target, ins5![1]!.statement], ['S', ins5![0]!.statement]);
  assert.equal(await namedOnServer(conn), 2);
  relay.clear();
  await update.run([6, 1]);
  await insert.run([106, 6, new Date(Date.UTC(2024, 0, 6))]);
  assert.deepEqual(relay.requests().map(kinds), ['BES', 'BES'], 'after naming: Bind, Execute, Sync');
  assert.equal(await namedOnServer(conn), 2);
  assert.deepEqual(await conn.query('SELECT n FROM t WHERE id = 1'), [['21']], 'every execution ran: 1 + ... + 6');
  assert.deepEqual(await conn.query('SELECT at FROM t WHERE id = 106'), [['2024-01-06 00:00:00']], 'the timestamp as the server inferred it');
  // Rows: the types from the naming execution's Describe decode the bound-only executions' rows.
  for (let i = 0; i < 4; i++)
    assert.deepEqual(
      await read.all([2]),
      [
        [1, '21'],
        [2, '0'],
      ],
      `read ${i + 1}`,
    );
});

test('postgres: prepareAtThreshold recovers from a naming execution that fails, whether its Parse failed or a later message', async (t) => {
  const fresh = await relayed(t);
  if (!fresh) return;
  const { relay, conn } = fresh;
  await conn.query('CREATE TABLE t (id int PRIMARY KEY, n int CHECK (n < 100))');
  const insert = conn.prepareAtThreshold!('INSERT INTO t VALUES (?, ?)', 3, ['integer', 'integer']);
  await insert.run([1, 1]);
  await insert.run([2, 2]);
  // The naming execution's Parse succeeds, its Execute fails: the server keeps the name.
  await assert.rejects(insert.run([3, 100]), /check constraint/);
  assert.equal(await namedOnServer(conn), 1);
  relay.clear();
  assert.equal(await insert.run([3, 3]), 1, 'named again after closing the name');
  const [retry] = relay.requests();
  assert.equal(kinds(retry!), 'CPBDES', 'Close statement, then the naming write again');
  assert.deepEqual([retry![0]!.target, retry![0]!.statement], ['S', retry![1]!.statement]);
  assert.equal(await namedOnServer(conn), 1);
  relay.clear();
  await insert.run([4, 4]);
  assert.deepEqual(relay.requests().map(kinds), ['BES']);

  // The naming execution's Parse fails (its table is gone): no name on the server, the next one parses it.
  const other = conn.prepareAtThreshold!('INSERT INTO u VALUES (?)', 2, ['integer']);
  await conn.query('CREATE TABLE u (id int)');
  await other.run([1]);
  await conn.query('DROP TABLE u');
  await assert.rejects(other.run([2]), /relation "u" does not exist/);
  await conn.query('CREATE TABLE u (id int)');
  assert.equal(await other.run([3]), 1);
  await other.run([4]);
  assert.deepEqual(await conn.query('SELECT id FROM u ORDER BY id'), [[3], [4]]);
  assert.equal(await namedOnServer(conn), 2);
  assert.deepEqual(await conn.query('SELECT n FROM t ORDER BY id'), [[1], [2], [3], [4]]);
});
