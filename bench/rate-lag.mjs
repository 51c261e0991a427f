#!/usr/bin/env node
// Schedule lag and latency under -R, pgbench and headroom side by side: the same built-in script,
// rate, clients and duration against one PostgreSQL database (pgbench's tables, loaded once by
// pgbench -i), each writing its -l log; the percentiles are computed here from both logs alike.
// Not a test: on a busy machine both tools' lag grows with the load around them.
//
//   node bench/rate-lag.mjs [--db postgres://postgres@127.0.0.1:5432/headroom_rate] [--rate 400]
//        [--clients 4] [--time 6] [--scale 1] [--builtin select-only] [--protocol prepared]
//
// Lag is the scheduled start to the actual start; latency counts from the scheduled start (both
// tools), so it holds the lag. Lines of failed or skipped transactions are left out.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { timed } from './timed.mjs';
import { headroom } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/headroom_rate' },
    rate: { type: 'string', default: '400' },
    clients: { type: 'string', default: '4' },
    time: { type: 'string', default: '6' },
    scale: { type: 'string', default: '1' },
    builtin: { type: 'string', default: 'select-only' },
    protocol: { type: 'string', default: 'prepared' },
  },
});

/** Lag and latency in microseconds of each committed transaction in the -l files of `prefix` (pgbench's per-transaction format). */
function readLogs(dir, prefix) {
  const lag = [];
  const latency = [];
  for (const file of readdirSync(dir).filter((f) => f.startsWith(`${prefix}.`))) {
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      const f = line.split(' ');
      if (f.length < 7 || !/^\d+$/.test(f[2])) continue;
      latency.push(Number(f[2]));
      lag.push(Number(f[6]));
    }
  }
  return { lag, latency };
}

/** The p-th percentile (nearest rank) of sorted values. */
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

function figures(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0],
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.at(-1),
    negative: sorted.filter((v) => v < 0).length,
  };
}

const url = new URL(values.db);
const database = url.pathname.slice(1);
const pgArgs = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
const psql = (sql) => timed('psql', [...pgArgs, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qc', sql]);
const work = mkdtempSync(path.join(tmpdir(), 'headroom-rate-'));
try {
  console.log(
    `database ${values.db}: -b ${values.builtin} -R ${values.rate} -c ${values.clients} -T ${values.time}, query mode ${values.protocol}, scale ${values.scale}`,
  );
  await psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await psql(`CREATE DATABASE ${database}`);
  await timed('pgbench', [...pgArgs, '-i', '-q', '-s', values.scale, database]);
  const common = ['-b', values.builtin, '-R', values.rate, '-c', values.clients, '-T', values.time];
  await timed('pgbench', [...pgArgs, '-n', '-M', values.protocol, ...common, '-j', '1', '-l', '--log-prefix', path.join(work, 'pgbench'), database]);
  headroom([
    'run',
    'tpcb',
    ...common,
    '--protocol',
    values.protocol,
    '-l',
    '--log-prefix',
    path.join(work, 'headroom'),
    '--db',
    values.db,
    '-P',
    '0',
    '--observe=false',
    '-o',
    path.join(work, 'headroom.json'),
  ]);

  const rows = [];
  for (const tool of ['pgbench', 'headroom']) {
    const { lag, latency } = readLogs(work, tool);
    if (lag.length === 0) throw new Error(`${tool} logged no committed transaction in ${work}`);
    rows.push([tool, 'lag', figures(lag)], [tool, 'latency', figures(latency)]);
  }
  const ms = (us) => (us / 1000).toFixed(3);
  console.log('');
  console.log('tool      figure   transactions  min ms  p50 ms  p90 ms  p99 ms  max ms  negative');
  for (const [tool, what, f] of rows) {
    console.log(
      `${tool.padEnd(9)} ${what.padEnd(8)} ${String(f.n).padStart(12)}  ${ms(f.min).padStart(6)}  ${ms(f.p50).padStart(6)}  ${ms(f.p90).padStart(6)}  ${ms(f.p99).padStart(6)}  ${ms(f.max).padStart(6)}  ${String(f.negative).padStart(8)}`,
    );
  }
} finally {
  await psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((e) => console.error(`cleanup: ${e.message}`));
  rmSync(work, { recursive: true, force: true });
}
