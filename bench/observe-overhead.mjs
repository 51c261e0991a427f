#!/usr/bin/env node
// What sampling the server costs: headroom runs with and without --observe, alternating, against
// the same database, and prints both TPS, both client CPU per transaction, and the ratios.
//
//   node bench/observe-overhead.mjs [--db postgres://postgres@127.0.0.1:5432/test] [--clients 8]
//        [--time 15] [--rounds 3] [--builtin select-only]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { HEADROOM_CLI as cli } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    clients: { type: 'string', default: '8' },
    time: { type: 'string', default: '15' },
    rounds: { type: 'string', default: '3' },
    builtin: { type: 'string', default: 'select-only' },
  },
});
const work = mkdtempSync(path.join(tmpdir(), 'headroom-observe-bench-'));

function run(observe, round) {
  const out = path.join(work, `${observe}-${round}.json`);
  const args = [
    cli,
    'run',
    'tpcb',
    '--db',
    values.db,
    '-b',
    values.builtin,
    '-c',
    values.clients,
    '-T',
    values.time,
    '-P',
    '0',
    `--observe=${observe}`,
    '--out',
    out,
  ];
  const child = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`headroom exited ${child.status}: ${child.stderr.trim().split('\n').pop()}`);
  const { summary } = JSON.parse(readFileSync(out, 'utf8'));
  return { tps: summary.tps, cpuUs: summary.clientCpu.usPerTransaction };
}

try {
  console.log(`${values.db}, -b ${values.builtin}, ${values.clients} clients, ${values.time} s per run`);
  const sums = { true: { tps: 0, cpuUs: 0 }, false: { tps: 0, cpuUs: 0 } };
  for (let round = 1; round <= Number(values.rounds); round++) {
    // Alternate which goes first, so drift in the machine's load does not favour one side.
    for (const observe of round % 2 === 1 ? [false, true] : [true, false]) {
      const r = run(observe, round);
      sums[observe].tps += r.tps;
      sums[observe].cpuUs += r.cpuUs;
      console.log(`round ${round} observe=${observe}: ${r.tps.toFixed(1)} tps, ${r.cpuUs.toFixed(1)} us/txn client cpu`);
    }
  }
  const n = Number(values.rounds);
  const on = { tps: sums.true.tps / n, cpuUs: sums.true.cpuUs / n };
  const off = { tps: sums.false.tps / n, cpuUs: sums.false.cpuUs / n };
  console.log(
    `mean: observe=false ${off.tps.toFixed(1)} tps ${off.cpuUs.toFixed(1)} us/txn; observe=true ${on.tps.toFixed(1)} tps ${on.cpuUs.toFixed(1)} us/txn`,
  );
  console.log(`tps ratio (observed / not) ${(on.tps / off.tps).toFixed(3)}; client cpu ratio ${(on.cpuUs / off.cpuUs).toFixed(3)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
