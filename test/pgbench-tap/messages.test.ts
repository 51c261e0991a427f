import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, type CliRun } from '../helpers/cli.js';
import { sideBySide, tapServer } from './harness.js';

/**
 * pgbench 15's messages, run through headroom pgbench and through pgbench itself on the same
 * database with the same arguments, compared line for line where pgbench's words are libpq's:
 * the latency line's "(including failures)", an SQL error's LINE and caret lines, a connection
 * that fails.
 */
const server = tapServer(true);

const { both, script } = sideBySide(server);

/** stderr with headroom's prefix written as pgbench's, for a line-by-line comparison. */
const asPgbench = (run: CliRun): string => run.stderr.replace(/^headroom pgbench:/gm, 'pgbench:');

test('initialised by pgbench -i', async (t) => {
  if (!server.db) return void t.skip('no test database');
  const run = await runCli(['pgbench', '-i', '-q'], { env: server.env });
  assert.equal(run.code, 0, run.stderr);
});

// Client 0 fails every transaction with a serialization failure (counted, not aborted), client 1 never does.
const HALF_FAIL = "\\if :client_id = 0\nDO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$;\n\\else\nSELECT 1;\n\\endif\n";

test('"latency average" from the run time over every transaction, "(including failures)" when some failed, only where pgbench did not time each one', async (t) => {
  const file = script('half-fail.sql', HALF_FAIL);
  const runs = await both(t, ['-n', '-c', '2', '-t', '20', '-f', file]);
  if (!runs) return;
  for (const [who, run] of Object.entries(runs)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.match(run.stdout, /^number of failed transactions: 20 \(50\.000%\)$/m, who);
    const latency = /^latency average = (\d+\.\d{3}) ms \(including failures\)$/m.exec(run.stdout);
    assert.ok(latency, `${who}: no "(including failures)" in\n${run.stdout}`);
    // pgbench's figure: the run's time times the clients over all 40 transactions, i.e. 2 clients * 20 committed / (tps * 40).
    const tps = Number(/^tps = (\d+\.\d+) /m.exec(run.stdout)![1]);
    const expected = (1000 * 2 * 20) / (tps * 40);
    assert.ok(Math.abs(Number(latency[1]) - expected) <= Math.max(0.002, expected * 0.01), `${who}: latency ${latency[1]} ms, expected ${expected.toFixed(3)}`);
  }
  // Every transaction failed: pgbench stops after the failure counts, with no latency, time or rate.
  const allFail = script('all-fail.sql', "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$;\n");
  const failed = await both(t, ['-n', '-t', '5', '-f', allFail]);
  for (const [who, run] of Object.entries(failed!)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.match(run.stdout, /\nnumber of failed transactions: 5 \(100\.000%\)\n$/, who);
  }
  // No failure: the same figure, without the words.
  const clean = await both(t, ['-n', '-c', '2', '-t', '20', '-S']);
  for (const [who, run] of Object.entries(clean!)) assert.match(run.stdout, /^latency average = \d+\.\d{3} ms$/m, who);
  // -P times every transaction: its average of the committed ones, the per-script lines likewise, never the words.
  const timed = await both(t, ['-n', '-c', '2', '-t', '20', '-P', '1', '-f', `${file}@1`, '-b', 'select-only@1']);
  for (const [who, run] of Object.entries(timed!)) {
    assert.equal(run.code, 0, `${who}: ${run.stderr}`);
    assert.match(run.stdout, /^latency average = \d+\.\d{3} ms$/m, who);
    assert.match(run.stdout, /^ - latency average = \d+\.\d{3} ms$/m, who);
    assert.doesNotMatch(run.stdout, /including failures/, who);
  }
});

/** The abort message's libpq lines: everything from "ERROR:" up to pgbench's closing line. */
function abortReport(run: CliRun): string {
  const text = asPgbench(run);
  const start = text.indexOf('ERROR:  ');
  const end = text.indexOf('pgbench: error: Run was aborted');
  assert.ok(start >= 0 && end > start, `no aborted client in\n${run.stderr}`);
  return text.slice(start, end);
}

const POSITIONED: Record<string, string> = {
  'first line of several': 'select nosuch,\n  1 from pgbench_branches;\n',
  'a later line, tabs shown as one space each': 'select 1,\n  2,\n\t\tnosuchcol\n  from pgbench_branches;\n',
  'a long line cut on the right': `select ${Array.from({ length: 40 }, (_, i) => `col${i}`).join(', ')}\n from pgbench_branches;\n`,
  'a long line cut on both sides': `select 1 from pgbench_branches where ${Array.from({ length: 8 }, (_, i) => `bid = ${i}`).join(' and ')} and nosuch = 1 and ${Array.from({ length: 6 }, (_, i) => `bid = ${i}`).join(' and ')}\n;\n`,
  'wide characters take two columns': "select 'é日本語' || nosuch\n;\n",
  'within a generated statement: its QUERY line': 'DO $$ BEGIN PERFORM nosuch; END $$;\n',
};

for (const [name, sql] of Object.entries(POSITIONED)) {
  test(`an SQL error that aborts a client: libpq's LINE and caret lines, as pgbench prints them (${name})`, async (t) => {
    const file = script(`position-${name.replace(/\W+/g, '-')}.sql`, sql);
    for (const mode of ['simple', 'extended']) {
      const runs = await both(t, ['-n', '-t', '1', '-M', mode, '-f', file]);
      if (!runs) return;
      assert.equal(runs.ours.code, 2, runs.ours.stderr);
      assert.equal(runs.theirs.code, 2, runs.theirs.stderr);
      assert.match(abortReport(runs.theirs), /\nLINE \d+: .*\n +\^\n/, 'pgbench shows the position');
      assert.equal(abortReport(runs.ours), abortReport(runs.theirs), `-M ${mode}`);
    }
  });
}

/** A TCP port nothing listens on: one the system just handed out and took back. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test("no server there: libpq's lines for each host tried (the address of a name, a socket's question), pgbench's closing line, exit 1", async (t) => {
  if (!server.db) return void t.skip('no test database');
  const port = String(await freePort());
  const noSocket = mkdtempSync(path.join(tmpdir(), 'headroom-no-socket-'));
  t.after(() => rmSync(noSocket, { recursive: true, force: true }));
  const { PGDATABASE } = server.env;
  for (const hosts of [
    ['-h', '127.0.0.1', '-p', port],
    ['-h', 'localhost', '-p', port],
    ['-h', noSocket, '-p', port],
    ['-h', `127.0.0.1,${noSocket}`, '-p', port],
    ['-h', 'no-such-host.invalid'],
  ]) {
    const runs = await both(t, ['-n', '-S', '-t', '1', ...hosts, PGDATABASE!]);
    if (!runs) return;
    assert.equal(runs.theirs.code, 1, runs.theirs.stderr);
    assert.match(runs.theirs.stderr, /^pgbench: error: (connection to server|could not translate host name)/);
    assert.equal(runs.ours.code, 1, runs.ours.stderr);
    assert.equal(asPgbench(runs.ours), runs.theirs.stderr, hosts.join(' '));
  }
  // The server refuses the login of a host given by name: the address it was reached at, then the server's words.
  const refused = await both(t, ['-n', '-S', '-t', '1', '-h', 'localhost', '-p', server.env['PGPORT']!, 'headroom_no_such_database']);
  assert.equal(refused!.ours.code, 1);
  assert.match(
    refused!.theirs.stderr,
    /^pgbench: error: connection to server at "localhost" \(127\.0\.0\.1\), port \d+ failed: FATAL: {2}database "headroom_no_such_database" does not exist\n/,
  );
  assert.equal(asPgbench(refused!.ours), refused!.theirs.stderr);
  // Several hosts: a server's refusal ends the search as libpq ends it, after the hosts that could not be reached.
  const serverPort = server.env['PGPORT']!;
  for (const order of [
    ['localhost,127.0.0.1', `${serverPort},${port}`],
    ['127.0.0.1,localhost', `${port},${serverPort}`],
  ]) {
    const runs = await both(t, ['-n', '-S', '-t', '1', '-h', order[0]!, '-p', order[1]!, 'headroom_no_such_database']);
    assert.equal(runs!.ours.code, 1);
    assert.equal(asPgbench(runs!.ours), runs!.theirs.stderr, order.join(' '));
  }
});
