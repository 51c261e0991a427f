import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freshDatabase } from '../helpers/databases.js';
import { throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

const BENCH = fileURLToPath(new URL('../../../bench/pgbench-vs-headroom.mjs', import.meta.url));

/** A printed ratio against the one its printed figures give: they are rounded, so to within 2%. */
const close = (printed: number, exact: number): boolean => Math.abs(printed - exact) <= 0.02 * exact + 0.005;

/** Not a benchmark: a one-second run proving the side-by-side script still works end to end. */
test('bench/pgbench-vs-headroom.mjs runs both tools and prints their ratios', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  // The script creates and drops a database of its own; the fresh one only names it.
  await db.dispose();
  const url = `${db.url}_bench`;
  const child = spawnSync(process.execPath, [BENCH, '--db', url, '--time', '1', '--scale', '1', '--clients', '2'], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  for (const mode of ['select-only', 'tpcb-like']) {
    const row = new RegExp(`^${mode} +2 +1 +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+)$`, 'm').exec(child.stdout);
    assert.ok(row, `no ${mode} row in:\n${child.stdout}`);
    const [pgTps, hrTps, tpsRatio, pgCpu, hrCpu, cpuRatio] = row.slice(1).map(Number);
    assert.ok(pgTps! > 0 && hrTps! > 0 && pgCpu! > 0 && hrCpu! > 0, row[0]);
    assert.ok(close(tpsRatio!, hrTps! / pgTps!) && close(cpuRatio!, hrCpu! / pgCpu!), `ratios must follow from the figures: ${row[0]}`);
  }
});

const SCRIPT_BENCH = fileURLToPath(new URL('../../../bench/pgbench-script.mjs', import.meta.url));
const INTERPRETER_BENCH = fileURLToPath(new URL('../../../bench/script-interpreter-cpu.mjs', import.meta.url));

test('bench/pgbench-script.mjs runs pgbench -f and headroom -f / -b on one script and prints the ratios', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  await db.dispose();
  const child = spawnSync(
    process.execPath,
    [SCRIPT_BENCH, '--db', `${db.url}_sbench`, '--time', '1', '--scale', '1', '--clients', '2', '--scripts', 'select-only'],
    { encoding: 'utf8' },
  );
  assert.equal(child.status, 0, child.stderr);
  for (const what of ['pgbench -f vs headroom -f', 'headroom -b vs headroom -f']) {
    const row = new RegExp(`^select-only: ${what} +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+)$`, 'm').exec(child.stdout);
    assert.ok(row, `no "${what}" row in:\n${child.stdout}`);
    const [aTps, bTps, , aCpu, bCpu] = row.slice(1).map(Number);
    assert.ok(aTps! > 0 && bTps! > 0 && aCpu! > 0 && bCpu! > 0, row[0]);
  }
});

test('bench/script-interpreter-cpu.mjs measures both ways of running the built-ins', () => {
  const child = spawnSync(process.execPath, [INTERPRETER_BENCH, '--transactions', '2000', '--rounds', '1'], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  for (const name of ['select-only', 'tpcb-like'])
    assert.match(child.stdout, new RegExp(`^${name} +round 1: hand-coded [\\d.]+ us/tx, interpreter [\\d.]+ us/tx`, 'm'));
});

const SYSBENCH_BENCH = fileURLToPath(new URL('../../../bench/sysbench-vs-headroom.mjs', import.meta.url));

const sysbenchMissing = (): string | undefined =>
  spawnSync('sysbench', ['--version']).status !== 0
    ? 'sysbench is not installed (bash scripts/services.sh installs it, or apt-get install sysbench)'
    : undefined;

test('bench/sysbench-vs-headroom.mjs runs sysbench and headroom on the table sysbench prepared and prints the ratios', async (t) => {
  if (skipOrFail(t, sysbenchMissing())) return;
  const db = await freshDatabase(t, 'mariadb');
  if (!db) return;
  // The script creates and drops a database of its own; the fresh one only names it.
  await db.dispose();
  const child = spawnSync(process.execPath, [SYSBENCH_BENCH, '--db', `${db.url}_sb`, '--time', '1', '--table-size', '1000', '--clients', '2'], {
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  for (const name of ['oltp_point_select', 'oltp_read_write']) {
    const row = new RegExp(`^${name} +1 +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+)$`, 'm').exec(child.stdout);
    assert.ok(row, `no ${name} row in:\n${child.stdout}`);
    const [sbTps, hrTps, tpsRatio, sbCpu, hrCpu, cpuRatio] = row.slice(1).map(Number);
    assert.ok(sbTps! > 0 && hrTps! > 0 && sbCpu! > 0 && hrCpu! > 0, row[0]);
    assert.ok(close(tpsRatio!, hrTps! / sbTps!) && close(cpuRatio!, hrCpu! / sbCpu!), `ratios must follow from the figures: ${row[0]}`);
  }
  // The headroom side ran on sysbench's table alone: no pgbench tables were loaded for it.
  assert.match(child.stdout, /round 1 oltp_point_select: .*tables loaded by headroom: none\)/);
  // Both tools in sysbench's default query mode (server-side prepared statements); the bench stops
  // if headroom's result records another protocol.
  assert.match(child.stdout, /, prepared statements$/m);
});

const EFFICIENCY_BENCH = fileURLToPath(new URL('../../../bench/client-efficiency.mjs', import.meta.url));

test('bench/client-efficiency.mjs runs the four comparisons against pgbench and sysbench and prints the ratios', async (t) => {
  if (skipOrFail(t, sysbenchMissing())) return;
  const pg = await freshDatabase(t, 'postgres');
  const my = await freshDatabase(t, 'mariadb');
  if (!pg || !my) return;
  // The script creates and drops databases of its own; the fresh ones only name them.
  await pg.dispose();
  await my.dispose();
  const args = [
    '--pg-db',
    `${pg.url}_eff`,
    '--my-db',
    `${my.url}_eff`,
    '--rounds',
    '1',
    '--time',
    '1',
    '--clients',
    '2',
    '--scale',
    '1',
    '--table-size',
    '1000',
  ];
  const child = spawnSync(process.execPath, [EFFICIENCY_BENCH, ...args], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, /^2 clients, 1 s per run, 1 round\(s\), prepared statements,/m);
  for (const comparison of ['pgbench select-only', 'pgbench tpcb-like', 'sysbench oltp_point_select', 'sysbench oltp_read_write']) {
    const row = new RegExp(`^${comparison} +native +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+)$`, 'm').exec(child.stdout);
    assert.ok(row, `no ${comparison} row in:\n${child.stdout}`);
    const [peerTps, ourTps, tpsRatio, peerCpu, ourCpu, inRunCpu, cpuRatio] = row.slice(1).map(Number);
    assert.ok(peerTps! > 0 && ourTps! > 0 && peerCpu! > 0 && ourCpu! > 0 && inRunCpu! > 0, row[0]);
    // One round: each ratio is that round's, so it follows from the printed figures.
    assert.ok(close(tpsRatio!, ourTps! / peerTps!) && close(cpuRatio!, ourCpu! / peerCpu!), `ratios must follow from the figures: ${row[0]}`);
  }
  // Each headroom run's line says how long its job thread went without a CPU (from its result).
  assert.match(child.stdout, /^round 1 sysbench oltp_point_select: .*headroom\/native .*, waited for a CPU \d+% of the time\)$/m);
  // --sched batch: both tools under chrt -b 0, and --jobs 1,2 labels each comparison's rows; the
  // bench stops if headroom's result does not record SCHED_BATCH.
  const batch = spawnSync(process.execPath, [EFFICIENCY_BENCH, ...args, '--tests', 'sysbench:oltp_point_select', '--sched', 'batch', '--jobs', '1,2'], {
    encoding: 'utf8',
  });
  assert.equal(batch.status, 0, batch.stderr);
  assert.match(batch.stdout, /^2 clients, .* headroom -j 1, 2 on transport\(s\) native, both tools under chrt -b 0 \(SCHED_BATCH\)$/m);
  for (const jobs of [1, 2]) assert.match(batch.stdout, new RegExp(`^sysbench oltp_point_select -j ${jobs} +native +[\\d.]+`, 'm'));
});

const MEMORY_BENCH = fileURLToPath(new URL('../../../bench/terminal-memory.mjs', import.meta.url));

test("bench/terminal-memory.mjs prints the client's peak memory per terminal count and job count", (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  const child = spawnSync(process.execPath, [MEMORY_BENCH, '--terminals', '1,6', '--jobs', '1,2', '--time', '1'], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const rows = [...child.stdout.matchAll(/^ +(\d+) +(\d+) +([\d.]+) +(-?[\d.]+|-) +(\d+) +([\d.]+)$/gm)].map((m) => ({
    terminals: Number(m[1]),
    jobs: Number(m[2]),
    peak: Number(m[3]),
    perTerminal: m[4]!,
    tps: Number(m[5]),
  }));
  // -j 2 starts at two terminals: each job needs one.
  assert.deepEqual(
    rows.map((r) => [r.terminals, r.jobs]),
    [
      [1, 1],
      [6, 1],
      [2, 2],
      [6, 2],
    ],
    child.stdout,
  );
  for (const r of rows) assert.ok(r.peak > 20 && r.tps > 0, JSON.stringify(r));
  for (const [base, grown] of [
    [rows[0]!, rows[1]!],
    [rows[2]!, rows[3]!],
  ] as const) {
    assert.equal(base.perTerminal, '-');
    const expected = (grown.peak - base.peak) / (grown.terminals - base.terminals);
    // The peaks are printed as the result files hold them (0.1 MB); the quotient to three decimals.
    assert.ok(Math.abs(Number(grown.perTerminal) - expected) <= 0.0005 + 1e-9, `${grown.perTerminal} from ${JSON.stringify([base, grown])}`);
  }
});
