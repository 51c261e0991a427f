#!/usr/bin/env node
// Side by side, back to back: pgbench -f and headroom -f running the same script file against
// the same PostgreSQL database (pgbench's tables, loaded once by pgbench -i), same clients, same
// duration, same protocol (prepared statements on both sides). Then headroom's built-in against
// the same text as a script file, to show what reading a file costs (nothing is expected: the
// built-ins are scripts run by the same interpreter). Prints TPS, client CPU microseconds per
// transaction and the ratios. Not a test: run it on a quiet machine.
//
//   node bench/pgbench-script.mjs [--db postgres://postgres@127.0.0.1:5432/headroom_script_bench]
//        [--clients 8] [--time 15] [--scale 10] [--scripts select-only,tpcb-like]
//
// CPU is each client process's user+system time from bash's `times`, divided by its transactions.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { timed, printTimingNote } from './timed.mjs';
import { HEADROOM_CLI as cli } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/headroom_script_bench' },
    clients: { type: 'string', default: '8' },
    time: { type: 'string', default: '15' },
    scale: { type: 'string', default: '10' },
    scripts: { type: 'string', default: 'select-only,tpcb-like' },
  },
});
const { BUILTIN_SCRIPTS } = await import(new URL('../dist/src/workloads/pgbench-script/builtin-scripts.js', import.meta.url).href);
const url = new URL(values.db);
const database = url.pathname.slice(1);
const pgArgs = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
const work = mkdtempSync(path.join(tmpdir(), 'headroom-script-bench-'));

async function pgbench(file) {
  const r = await timed('pgbench', [...pgArgs, '-n', '-M', 'prepared', '-f', file, '-c', values.clients, '-j', '1', '-T', values.time, database]);
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(r.output)[1]);
  return { tps: Number(/tps = ([\d.]+)/.exec(r.output)[1]), cpuUs: (r.cpuSeconds * 1e6) / transactions };
}

async function headroom(label, scriptArgs) {
  const out = path.join(work, `${label}.json`);
  const r = await timed(process.execPath, [
    cli,
    'run',
    'tpcb',
    '--db',
    values.db,
    ...scriptArgs,
    '--protocol',
    'prepared',
    '-c',
    values.clients,
    '-T',
    values.time,
    '-P',
    '0',
    '--observe=false',
    '--out',
    out,
  ]);
  const result = JSON.parse(readFileSync(out, 'utf8'));
  return { tps: result.summary.tps, cpuUs: (r.cpuSeconds * 1e6) / (result.summary.transactions + result.summary.failed) };
}

const fmt = (n, d = 1) => n.toFixed(d);
const line = (what, a, b) =>
  console.log(
    `${what.padEnd(34)} ${fmt(a.tps).padStart(9)} ${fmt(b.tps).padStart(9)} ${fmt(b.tps / a.tps, 2).padStart(6)}   ${fmt(a.cpuUs).padStart(8)} ${fmt(b.cpuUs).padStart(8)} ${fmt(b.cpuUs / a.cpuUs, 2).padStart(6)}`,
  );
try {
  await timed('psql', [...pgArgs, '-d', 'postgres', '-qc', `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`]);
  await timed('psql', [...pgArgs, '-d', 'postgres', '-qc', `CREATE DATABASE ${database}`]);
  await timed('pgbench', [...pgArgs, '-i', '-q', '-s', values.scale, database]);
  console.log(`database ${values.db}, scale ${values.scale}, ${values.clients} clients, ${values.time} s per run, prepared statements`);
  printTimingNote();
  console.log(
    `${'comparison (A vs B)'.padEnd(34)} ${'A tps'.padStart(9)} ${'B tps'.padStart(9)} ${'B/A'.padStart(6)}   ${'A us/tx'.padStart(8)} ${'B us/tx'.padStart(8)} ${'B/A'.padStart(6)}`,
  );
  for (const name of values.scripts.split(',')) {
    const file = path.join(work, `${name}.sql`);
    writeFileSync(file, BUILTIN_SCRIPTS[name]);
    const pg = await pgbench(file);
    const hrFile = await headroom(`${name}-file`, ['-f', file]);
    const hrBuiltin = await headroom(`${name}-builtin`, ['-b', name]);
    line(`${name}: pgbench -f vs headroom -f`, pg, hrFile);
    line(`${name}: headroom -b vs headroom -f`, hrBuiltin, hrFile);
  }
} finally {
  await timed('psql', [...pgArgs, '-d', 'postgres', '-qc', `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`]).catch((e) =>
    console.error(`cleanup: ${e.message}`),
  );
  rmSync(work, { recursive: true, force: true });
}
