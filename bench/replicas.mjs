#!/usr/bin/env node
// Read offloading side by side on the project's own PostgreSQL cluster (scripts/cluster-postgres.sh:
// a primary, two streaming replicas, pgpool-II in front): each workload three ways, back to back:
//   primary     headroom --route none (everything to the primary)
//   split       headroom --route split (reads before a transaction's first write to the replicas)
//   pgpool      headroom --route none against pgpool-II, which balances the reads itself
// and prints TPS, the ratio to primary-only, and each node's share of the statements (headroom's
// own counts; for pgpool, its SHOW POOL_NODES select_cnt before and after the run, reads only).
// Not a test: the cluster shares the machine's cores with everything else.
//
// With --cluster galera: the same on scripts/cluster-galera.sh's three-node Galera cluster, primary
// only and split (the "replicas" are the other two nodes; there is no proxy to compare).
//
//   node bench/replicas.mjs [--cluster postgres|galera] [--time 15] [--clients 16] [--tpcb-scale 10] [--chain-scale 1/1000]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { headroom } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    cluster: { type: 'string', default: 'postgres' },
    time: { type: 'string', default: '15' },
    clients: { type: 'string', default: '16' },
    'tpcb-scale': { type: 'string', default: '10' },
    'chain-scale': { type: 'string', default: '1/1000' },
  },
});
const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'headroom-replicas-bench-'));

const galera = values.cluster === 'galera';
const up = execFileSync('bash', [path.join(root, `scripts/cluster-${galera ? 'galera' : 'postgres'}.sh`), 'up'], { encoding: 'utf8' });
const cluster = /^(?:primary|node1)\s+(\S+)$/m.exec(up)[1];
const pool = /^pgpool\s+(\S+)$/m.exec(up)?.[1];
const primaryOnly = cluster.replace(/\?.*$/, '');
const poolPort = pool && new URL(pool).port;

/** pgpool's own per-node SELECT counters (cumulative since it started). */
function poolSelects() {
  const out = execFileSync('psql', ['-h', '127.0.0.1', '-p', poolPort, '-U', 'postgres', '-d', 'postgres', '-AtF', ' ', '-c', 'SHOW POOL_NODES'], {
    encoding: 'utf8',
  });
  return out
    .trim()
    .split('\n')
    .map((line) => Number(line.split(' ')[8]));
}

const pct = (part, whole) => (whole > 0 ? `${((part / whole) * 100).toFixed(0)}%` : '-');

try {
  const workloads = [
    { name: 'tpcb three-reads', args: ['tpcb', '-b', 'three-reads'], init: ['tpcb', '-s', values['tpcb-scale']] },
    { name: 'chain model-unit', args: ['chain', '--max-tries', '5'], init: ['chain', '-s', values['chain-scale']] },
  ];
  console.log(
    `${values.cluster} cluster, ${values.clients} terminals, ${values.time} s per run; uptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`,
  );
  console.log('workload           routing   tps       ratio  statements: primary / replica1 / replica2   failed');
  for (const w of workloads) {
    headroom(['init', ...w.init, '--db', primaryOnly]);
    let base;
    for (const side of galera ? ['primary', 'split'] : ['primary', 'split', 'pgpool']) {
      const out = path.join(work, `${side}.json`);
      const db = side === 'pgpool' ? pool : side === 'primary' ? cluster : cluster;
      const route = side === 'split' ? 'split' : 'none';
      const before = side === 'pgpool' ? poolSelects() : undefined;
      headroom(['run', ...w.args, '--db', db, '--route', route, '-c', values.clients, '-T', values.time, '-P', '0', '--observe=false', '-o', out]);
      const result = JSON.parse(readFileSync(out, 'utf8'));
      const tps = result.summary.tps;
      base ??= tps;
      let shares;
      if (before) {
        const selects = poolSelects().map((n, i) => n - before[i]);
        const all = selects.reduce((a, b) => a + b, 0);
        shares = `${selects.map((n) => pct(n, all)).join(' / ')} of SELECTs (pgpool select_cnt)`;
      } else {
        const nodes = result.replication.nodes;
        const all = nodes.reduce((a, n) => a + n.statements, 0);
        shares = `${[0, 1, 2].map((i) => pct(nodes[i]?.statements ?? 0, all)).join(' / ')} of all statements`;
      }
      console.log(
        `${w.name.padEnd(18)} ${side.padEnd(9)} ${tps.toFixed(1).padStart(8)}  ${(tps / base).toFixed(2).padStart(5)}  ${shares.padEnd(42)} ${result.summary.failed}`,
      );
    }
  }
  console.log(`uptime after: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
