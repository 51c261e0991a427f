#!/usr/bin/env node
// Side by side, in one run: pgbench and headroom against the same PostgreSQL database (pgbench's
// own tables, loaded once by pgbench -i), same clients, same duration, back to back, for each
// built-in script and client count asked. Prints both TPS, both client CPU microseconds per
// transaction, and the ratios (headroom / pgbench). Not a test: run it on a quiet machine.
//
//   node bench/pgbench-vs-headroom.mjs [--db postgres://postgres@127.0.0.1:5432/headroom_bench]
//        [--clients 1,8,32] [--time 20] [--scale 10] [--rounds 1]
//        [--builtins select-only,simple-update,tpcb-like]   (--modes is the same list)
//
// CPU is the whole client process's user+system time (bash's `times` over the child), so both
// tools pay for their own start-up; headroom's in-run figure from its result file is shown too.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { timed } from './timed.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/headroom_bench' },
    clients: { type: 'string', default: '8' },
    time: { type: 'string', default: '20' },
    scale: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '1' },
    // Both tools in the same query mode (pgbench -M, headroom --protocol); pgbench's own default is simple.
    protocol: { type: 'string', default: 'prepared' },
    modes: { type: 'string' },
    builtins: { type: 'string', default: 'select-only,tpcb-like' },
  },
});
const builtins = (values.modes ?? values.builtins).split(',');
const clientCounts = values.clients.split(',');
const cli = fileURLToPath(new URL('../dist/src/cli/bin.js', import.meta.url));
const url = new URL(values.db);
const database = url.pathname.slice(1);
const pgArgs = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
const work = mkdtempSync(path.join(tmpdir(), 'headroom-bench-'));


async function psql(sql, db = 'postgres') {
  await timed('psql', [...pgArgs, '-d', db, '-v', 'ON_ERROR_STOP=1', '-qc', sql]);
}

async function runPgbench(mode, clients) {
  const r = await timed('pgbench', [...pgArgs, '-n', '-M', values.protocol, '-b', mode, '-c', clients, '-j', '1', '-T', values.time, database]);
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(r.output)[1]);
  const tps = Number(/tps = ([\d.]+)/.exec(r.output)[1]);
  return { tps, transactions, cpuUs: (r.cpuSeconds * 1e6) / transactions };
}

async function runHeadroom(mode, clients, round) {
  const out = path.join(work, `${mode}-${clients}-${round}.json`);
  const r = await timed(process.execPath, [cli, 'run', 'tpcb', '--db', values.db, '-b', mode, '--protocol', values.protocol, '-c', clients, '-T', values.time, '-P', '0', '--out', out]);
  const result = JSON.parse(readFileSync(out, 'utf8'));
  const transactions = result.summary.transactions + result.summary.failed;
  return { tps: result.summary.tps, transactions, cpuUs: (r.cpuSeconds * 1e6) / transactions, inRunCpuUs: result.summary.clientCpu.usPerTransaction };
}

const fmt = (n, d = 1) => n.toFixed(d);
try {
  console.log(`database ${values.db}, query mode ${values.protocol}, scale ${values.scale}, clients ${clientCounts.join(', ')}, ${values.time} s per run, ${values.rounds} round(s)`);
  await psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await psql(`CREATE DATABASE ${database}`);
  await timed('pgbench', [...pgArgs, '-i', '-q', '-s', values.scale, database]);
  const rows = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const mode of builtins) for (const clients of clientCounts) {
      const pg = await runPgbench(mode, clients);
      const hr = await runHeadroom(mode, clients, round);
      rows.push({ round, mode, clients, pg, hr });
      console.log(`round ${round} ${mode} -c ${clients}: pgbench ${fmt(pg.tps)} tps ${fmt(pg.cpuUs)} us/txn; headroom ${fmt(hr.tps)} tps ${fmt(hr.cpuUs)} us/txn (in-run ${fmt(hr.inRunCpuUs)})`);
    }
  }
  console.log('');
  console.log('mode           clients  round  pgbench tps  headroom tps  tps ratio  pgbench cpu us/txn  headroom cpu us/txn  cpu ratio');
  for (const { round, mode, clients, pg, hr } of rows) {
    console.log(
      `${mode.padEnd(14)} ${clients.padStart(7)}  ${String(round).padStart(5)}  ${fmt(pg.tps).padStart(11)}  ${fmt(hr.tps).padStart(12)}  ${fmt(hr.tps / pg.tps, 2).padStart(9)}  ${fmt(pg.cpuUs).padStart(18)}  ${fmt(hr.cpuUs).padStart(19)}  ${fmt(hr.cpuUs / pg.cpuUs, 2).padStart(9)}`,
    );
  }
  console.log('tps ratio = headroom / pgbench (higher is better for headroom); cpu ratio = headroom / pgbench (lower is better)');
} finally {
  await psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((e) => console.error(`cleanup: ${e.message}`));
  rmSync(work, { recursive: true, force: true });
}
