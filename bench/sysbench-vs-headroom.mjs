#!/usr/bin/env node
// Side by side, in one run: sysbench and headroom against the same MariaDB database (the table
// sysbench prepared, sbtest1), same threads/clients, same duration, back to back, for
// oltp_point_select and oltp_read_write. headroom runs the same statements from script files
// (bench/sysbench/*.sql). Prints both TPS, both client CPU microseconds per transaction, and the
// ratios (headroom / sysbench). Not a test: run it on a quiet machine.
//
//   node bench/sysbench-vs-headroom.mjs [--db mariadb://root@127.0.0.1:3306/headroom_sysbench]
//        [--clients 8] [--time 20] [--table-size 100000] [--rounds 1]
//        [--tests oltp_point_select,oltp_read_write]
//
// CPU is the whole client process's user+system time (bash's `times` over the child), so both
// tools pay for their own start-up. Both draw keys uniformly (sysbench --rand-type=uniform).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { timed } from './timed.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'mariadb://root@127.0.0.1:3306/headroom_sysbench' },
    clients: { type: 'string', default: '8' },
    time: { type: 'string', default: '20' },
    'table-size': { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '1' },
    tests: { type: 'string', default: 'oltp_point_select,oltp_read_write' },
  },
});
const cli = fileURLToPath(new URL('../dist/src/cli/bin.js', import.meta.url));
const scripts = fileURLToPath(new URL('./sysbench/', import.meta.url));
const url = new URL(values.db);
const database = url.pathname.slice(1);
const mysqlArgs = ['-h', url.hostname, '-P', url.port || '3306', '-u', decodeURIComponent(url.username || 'root')];
const sysbenchConnection = [
  '--db-driver=mysql',
  `--mysql-host=${url.hostname}`,
  `--mysql-port=${url.port || '3306'}`,
  `--mysql-user=${decodeURIComponent(url.username || 'root')}`,
  `--mysql-db=${database}`,
  '--tables=1',
  `--table-size=${values['table-size']}`,
  '--rand-type=uniform',
];
const work = mkdtempSync(path.join(tmpdir(), 'headroom-sysbench-'));


const mysql = (sql) => timed('mariadb', [...mysqlArgs, '-e', sql]);

async function runSysbench(test) {
  const r = await timed('sysbench', [test, ...sysbenchConnection, `--threads=${values.clients}`, `--time=${values.time}`, '--report-interval=0', 'run']);
  const m = /transactions:\s+(\d+)\s+\(([\d.]+) per sec/.exec(r.output);
  if (!m) throw new Error(`no transactions line in sysbench's output:\n${r.output}`);
  const transactions = Number(m[1]);
  const errors = Number(/ignored errors:\s+(\d+)/.exec(r.output)?.[1] ?? 0);
  return { tps: Number(m[2]), transactions, cpuUs: (r.cpuSeconds * 1e6) / (transactions + errors) };
}

async function runHeadroom(test, round) {
  const out = path.join(work, `${test}-${round}.json`);
  const args = ['run', 'tpcb', '--db', values.db, '-f', path.join(scripts, `${test}.sql`), '-D', `table_size=${values['table-size']}`];
  const r = await timed(process.execPath, [cli, ...args, '-c', values.clients, '-T', values.time, '-P', '0', '--max-tries', '10', '--observe=false', '--out', out]);
  const result = JSON.parse(readFileSync(out, 'utf8'));
  const transactions = result.summary.transactions + result.summary.failed;
  return { tps: result.summary.tps, transactions, cpuUs: (r.cpuSeconds * 1e6) / transactions, failed: result.summary.failed, loadedBy: result.data.loadedBy };
}

const fmt = (n, d = 1) => n.toFixed(d);
try {
  console.log(`database ${values.db}, table size ${values['table-size']}, ${values.clients} clients, ${values.time} s per run, ${values.rounds} round(s)`);
  await mysql(`DROP DATABASE IF EXISTS ${database}; CREATE DATABASE ${database}`);
  // Any oltp_* test prepares the same table (oltp_common.lua): sbtest1 with k's secondary index.
  await timed('sysbench', ['oltp_read_write', ...sysbenchConnection, 'prepare']);
  const rows = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const test of values.tests.split(',')) {
      const sb = await runSysbench(test);
      const hr = await runHeadroom(test, round);
      rows.push({ round, test, sb, hr });
      console.log(`round ${round} ${test}: sysbench ${fmt(sb.tps)} tps ${fmt(sb.cpuUs)} us/txn; headroom ${fmt(hr.tps)} tps ${fmt(hr.cpuUs)} us/txn (${hr.failed} failed, tables loaded by headroom: ${hr.loadedBy})`);
    }
  }
  console.log('');
  console.log('test               round  sysbench tps  headroom tps  tps ratio  sysbench cpu us/txn  headroom cpu us/txn  cpu ratio');
  for (const { round, test, sb, hr } of rows) {
    console.log(
      `${test.padEnd(18)} ${String(round).padStart(5)}  ${fmt(sb.tps).padStart(12)}  ${fmt(hr.tps).padStart(12)}  ${fmt(hr.tps / sb.tps, 2).padStart(9)}  ${fmt(sb.cpuUs).padStart(19)}  ${fmt(hr.cpuUs).padStart(19)}  ${fmt(hr.cpuUs / sb.cpuUs, 2).padStart(9)}`,
    );
  }
  console.log('tps ratio = headroom / sysbench (higher is better for headroom); cpu ratio = headroom / sysbench (lower is better)');
} finally {
  await mysql(`DROP DATABASE IF EXISTS ${database}`).catch((e) => console.error(`cleanup: ${e.message}`));
  rmSync(work, { recursive: true, force: true });
}
