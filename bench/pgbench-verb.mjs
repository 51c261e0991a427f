#!/usr/bin/env node
// `headroom pgbench` and `pgbench` with identical arguments, back to back: -S, -N, tpcb-like and a
// -f script, each under -M simple and -M prepared. Prints each pair's TPS and client CPU per
// transaction (the whole client process's user+system seconds from bash's `times`, start-up
// included, as bench/client-efficiency.mjs measures it) and the ratios headroom / pgbench.
// Not a test: run it on a quiet machine for figures; each pair is one run per side.
//
//   node bench/pgbench-verb.mjs [--clients 4] [--time 5] [--scale 1] [--db headroom_pgbench_verb]
//        [--host 127.0.0.1] [--port 5432] [--user postgres] [--pgbench /usr/lib/postgresql/15/bin/pgbench]
//
// The database is created when missing and initialised once with `pgbench -i -s SCALE`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { printTimingNote, timed } from './timed.mjs';
import { HEADROOM_CLI as cli } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '4' },
    time: { type: 'string', default: '5' },
    scale: { type: 'string', default: '1' },
    db: { type: 'string', default: 'headroom_pgbench_verb' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '5432' },
    user: { type: 'string', default: 'postgres' },
    pgbench: { type: 'string', default: '/usr/lib/postgresql/15/bin/pgbench' },
  },
});
const connection = ['-h', values.host, '-p', values.port, '-U', values.user];
const folder = mkdtempSync(path.join(tmpdir(), 'headroom-pgbench-verb-'));
const script = path.join(folder, 'read-two.sql');
// A -f script of its own: two reads of random accounts and a computed value.
writeFileSync(
  script,
  '\\set a random(1, 100000 * :scale)\n\\set b random(1, 100000 * :scale)\n' +
    'SELECT abalance FROM pgbench_accounts WHERE aid = :a;\n' +
    'SELECT abalance + :b FROM pgbench_accounts WHERE aid = :b;\n',
);

const WORKLOADS = [
  ['select-only', ['-S']],
  ['simple-update', ['-N']],
  ['tpcb-like', []],
  ['-f script', ['-f', script]],
];

const exists = execFileSync('psql', [...connection, '-XAtc', `SELECT 1 FROM pg_database WHERE datname = '${values.db}'`, 'postgres'], {
  encoding: 'utf8',
}).trim();
if (exists !== '1') execFileSync('psql', [...connection, '-Xqc', `CREATE DATABASE ${values.db}`, 'postgres']);
execFileSync(values.pgbench, [...connection, '-i', '-q', '-s', values.scale, values.db], { stdio: 'ignore' });

/** tps and transactions from pgbench's block, which both print. */
function figures(output) {
  const tps = Number(/^tps = ([\d.]+)/m.exec(output)?.[1]);
  const processed = Number(/actually processed: (\d+)/.exec(output)?.[1]);
  const failed = Number(/number of failed transactions: (\d+)/.exec(output)?.[1] ?? 0);
  return { tps, transactions: processed + failed };
}

const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');
try {
  console.log(`${values.clients} clients, ${values.time} s per run, scale ${values.scale}, one run per side, headroom first`);
  printTimingNote();
  console.log(
    `${'workload'.padEnd(14)}${'mode'.padEnd(10)}${'pgbench tps'.padStart(13)}${'headroom tps'.padStart(14)}${'tps ratio'.padStart(11)}` +
      `${'pgbench us/tx'.padStart(15)}${'headroom us/tx'.padStart(16)}${'cpu ratio'.padStart(11)}`,
  );
  for (const [name, args] of WORKLOADS) {
    for (const mode of ['simple', 'prepared']) {
      const common = [...connection, '-n', '-c', values.clients, '-j', '1', '-T', values.time, '-M', mode, ...args, values.db];
      const ours = await timed(process.execPath, [cli, 'pgbench', ...common]);
      const theirs = await timed(values.pgbench, common);
      const h = figures(ours.output);
      const p = figures(theirs.output);
      const cpu = (run, f) => (run.cpuSeconds / f.transactions) * 1e6;
      const hc = cpu(ours, h);
      const pc = cpu(theirs, p);
      console.log(
        `${name.padEnd(14)}${mode.padEnd(10)}${fmt(p.tps).padStart(13)}${fmt(h.tps).padStart(14)}${fmt(h.tps / p.tps, 2).padStart(11)}` +
          `${fmt(pc).padStart(15)}${fmt(hc).padStart(16)}${fmt(hc / pc, 2).padStart(11)}`,
      );
    }
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
