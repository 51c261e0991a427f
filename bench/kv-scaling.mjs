#!/usr/bin/env node
// The billion-row study's connection scaling on a PostgreSQL cluster of its own: initdb in a
// temporary folder with max_connections = 300, load the kv table, then the read test at each
// client count, 10 s each, back to back. Prints the load time and rows/s, and one line per client
// count (tps, p50, p99, max, client CPU). Not a test: needs root (initdb runs as postgres) and a
// quiet machine. With --sweep, one `headroom run -c SPEC` does the steps instead.
//
//   npm run build && node bench/kv-scaling.mjs [--rows 10M] [--clients 1,8,32,64,128,256] [--time 10]
//        [--shared-buffers 256MB] [--sweep 1:256:x2]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../dist/test/helpers/throwaway-postgres.js';
import { headroom } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '10M' },
    clients: { type: 'string', default: '1,8,32,64,128,256' },
    time: { type: 'string', default: '10' },
    'shared-buffers': { type: 'string', default: '256MB' },
    sweep: { type: 'string' },
  },
});
const unavailable = throwawayPostgresUnavailable();
if (unavailable) {
  console.error(`kv-scaling: ${unavailable}`);
  process.exit(2);
}
const work = mkdtempSync(path.join(tmpdir(), 'headroom-kv-bench-'));
const settings = ['max_connections = 300', `shared_buffers = ${values['shared-buffers']}`];
const pg = await startThrowawayPostgres(['host all all 127.0.0.1/32 trust'], ['CREATE DATABASE kv'], settings);
const db = `postgres://postgres@127.0.0.1:${pg.port}/kv`;
const load = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`;
try {
  console.log(`PostgreSQL cluster of its own on port ${pg.port}: ${settings.join(', ')}; machine ${load()}`);
  const started = performance.now();
  const init = headroom(['init', 'kv', '--db', db, '-s', values.rows]);
  const seconds = (performance.now() - started) / 1000;
  console.log(init.stderr.trim());
  const rows = Number(/at scale (\d+)/.exec(init.stdout)[1]);
  console.log(
    `loaded ${rows.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s: ${Math.round(rows / seconds).toLocaleString('en-US')} rows/s overall; ${load()}`,
  );
  const steps = values.sweep ? [values.sweep] : values.clients.split(',');
  for (const clients of steps) {
    const out = path.join(work, `c${clients.replace(/\W/g, '_')}`);
    const run = headroom(['run', 'kv', '--db', db, '--test', 'read', '-c', clients, '-T', values.time, '-P', '0', '--live=false', '-o', `${out}.json`]);
    if (values.sweep) {
      console.log(run.stdout.trim());
      continue;
    }
    const result = JSON.parse(readFileSync(`${out}.json`, 'utf8'));
    const s = result.summary;
    console.log(
      `-c ${String(clients).padStart(3)}: ${s.tps.toFixed(0).padStart(7)} tps, p50 ${s.latencyMs.p50.toFixed(3)} ms, p99 ${s.latencyMs.p99.toFixed(3)} ms, max ${s.latencyMs.max.toFixed(1)} ms, ` +
        `${s.failed} failed, client CPU ${s.clientCpu.percentOfOneCore}% of a core (${s.clientCpu.usPerTransaction} us/tx); ${load()}`,
    );
  }
} finally {
  pg.stop();
  rmSync(work, { recursive: true, force: true });
}
