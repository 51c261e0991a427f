import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freshDatabase } from '../helpers/databases.js';

const BENCH = fileURLToPath(new URL('../../../bench/pgbench-vs-headroom.mjs', import.meta.url));

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
    // The printed figures are rounded, so the ratios are checked to within 2%.
    const close = (printed: number, exact: number): boolean => Math.abs(printed - exact) <= 0.02 * exact + 0.005;
    assert.ok(close(tpsRatio!, hrTps! / pgTps!) && close(cpuRatio!, hrCpu! / pgCpu!), `ratios must follow from the figures: ${row[0]}`);
  }
});

const SCRIPT_BENCH = fileURLToPath(new URL('../../../bench/pgbench-script.mjs', import.meta.url));
const INTERPRETER_BENCH = fileURLToPath(new URL('../../../bench/script-interpreter-cpu.mjs', import.meta.url));

test('bench/pgbench-script.mjs runs pgbench -f and headroom -f / -b on one script and prints the ratios', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  await db.dispose();
  const child = spawnSync(process.execPath, [SCRIPT_BENCH, '--db', `${db.url}_sbench`, '--time', '1', '--scale', '1', '--clients', '2', '--scripts', 'select-only'], { encoding: 'utf8' });
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
  for (const name of ['select-only', 'tpcb-like']) assert.match(child.stdout, new RegExp(`^${name} +round 1: hand-coded [\\d.]+ us/tx, interpreter [\\d.]+ us/tx`, 'm'));
});

const SYSBENCH_BENCH = fileURLToPath(new URL('../../../bench/sysbench-vs-headroom.mjs', import.meta.url));

test('bench/sysbench-vs-headroom.mjs runs sysbench and headroom on the table sysbench prepared and prints the ratios', async (t) => {
  const missing = spawnSync('sysbench', ['--version']).status !== 0 ? 'sysbench is not installed (bash scripts/services.sh installs it, or apt-get install sysbench)' : undefined;
  if (missing) {
    if (process.env['CI'] === 'true') throw new Error(missing);
    t.skip(missing);
    return;
  }
  const db = await freshDatabase(t, 'mariadb');
  if (!db) return;
  // The script creates and drops a database of its own; the fresh one only names it.
  await db.dispose();
  const child = spawnSync(process.execPath, [SYSBENCH_BENCH, '--db', `${db.url}_sb`, '--time', '1', '--table-size', '1000', '--clients', '2'], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  for (const name of ['oltp_point_select', 'oltp_read_write']) {
    const row = new RegExp(`^${name} +1 +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+) +([\\d.]+)$`, 'm').exec(child.stdout);
    assert.ok(row, `no ${name} row in:\n${child.stdout}`);
    const [sbTps, hrTps, tpsRatio, sbCpu, hrCpu, cpuRatio] = row.slice(1).map(Number);
    assert.ok(sbTps! > 0 && hrTps! > 0 && sbCpu! > 0 && hrCpu! > 0, row[0]);
    const close = (printed: number, exact: number): boolean => Math.abs(printed - exact) <= 0.02 * exact + 0.005;
    assert.ok(close(tpsRatio!, hrTps! / sbTps!) && close(cpuRatio!, hrCpu! / sbCpu!), `ratios must follow from the figures: ${row[0]}`);
  }
  // The headroom side ran on sysbench's table alone: no pgbench tables were loaded for it.
  assert.match(child.stdout, /round 1 oltp_point_select: .*tables loaded by headroom: none\)/);
});
