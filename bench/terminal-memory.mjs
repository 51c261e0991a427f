#!/usr/bin/env node
// What a terminal costs the client in memory: headroom's select-only on a PostgreSQL cluster of
// its own (initdb in a temporary folder, max_connections above the largest terminal count), one
// run per terminal count and -j, each printing the client's peak resident memory (the result's
// summary.clientMemory), its growth over the one-terminal run divided by the added terminals,
// and the tps and client CPU it got. Not a test: needs root (initdb runs as postgres).
//
//   npm run build && node bench/terminal-memory.mjs [--terminals 1,100,1000] [--jobs 1,2] [--time 5]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../dist/test/helpers/throwaway-postgres.js';
import { headroom } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    terminals: { type: 'string', default: '1,100,1000' },
    jobs: { type: 'string', default: '1,2' },
    time: { type: 'string', default: '5' },
  },
});
const counts = values.terminals.split(',').map(Number);
const jobCounts = values.jobs.split(',').map(Number);
if (![...counts, ...jobCounts].every((n) => Number.isInteger(n) && n > 0)) {
  console.error('terminal-memory: --terminals and --jobs take comma-separated whole numbers, e.g. --terminals 1,100,1000 --jobs 1,2');
  process.exit(2);
}
const unavailable = throwawayPostgresUnavailable();
if (unavailable) {
  console.error(`terminal-memory: ${unavailable}`);
  process.exit(2);
}
const work = mkdtempSync(path.join(tmpdir(), 'headroom-memory-bench-'));
// Room for every terminal, headroom's own admin connection and the observer's.
const settings = [`max_connections = ${Math.max(...counts) + 20}`];
const pg = await startThrowawayPostgres(['host all all 127.0.0.1/32 trust'], ['CREATE DATABASE memory'], settings);
const db = `postgres://postgres@127.0.0.1:${pg.port}/memory`;
try {
  console.log(`PostgreSQL cluster of its own on port ${pg.port} (${settings.join(', ')}); select-only, ${values.time} s per run`);
  headroom(['init', 'tpcb', '--db', db, '-s', '1']);
  console.log('terminals  jobs  peak MB  MB per added terminal      tps  client us/txn');
  for (const jobs of jobCounts) {
    let base;
    // Each job needs a terminal of its own: the smallest counts rise to the job count.
    for (const terminals of [...new Set(counts.map((c) => Math.max(c, jobs)))]) {
      const out = path.join(work, `c${terminals}-j${jobs}.json`);
      headroom([
        'run',
        'tpcb',
        '--db',
        db,
        '-b',
        'select-only',
        '-c',
        String(terminals),
        '-j',
        String(jobs),
        '-T',
        values.time,
        '-P',
        '0',
        '--live=false',
        '-o',
        out,
      ]);
      const { summary } = JSON.parse(readFileSync(out, 'utf8'));
      const peak = summary.clientMemory.peakRssMB;
      // Per terminal: what the run grew by over the smallest one with the same jobs, per added terminal.
      base ??= { terminals, peak };
      const perTerminal = terminals > base.terminals ? ((peak - base.peak) / (terminals - base.terminals)).toFixed(3) : '-';
      console.log(
        `${String(terminals).padStart(9)}  ${String(jobs).padStart(4)}  ${peak.toFixed(1).padStart(7)}  ${perTerminal.padStart(21)}  ${summary.tps.toFixed(0).padStart(7)}  ${String(summary.clientCpu.usPerTransaction).padStart(13)}`,
      );
    }
  }
} finally {
  pg.stop();
  rmSync(work, { recursive: true, force: true });
}
