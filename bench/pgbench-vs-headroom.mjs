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
// bench/client-efficiency.mjs runs this comparison and the sysbench one together, with medians.
import { parseArgs } from 'node:util';
import { pgbenchPair } from './lib/peers.mjs';
import { printTimingNote } from './timed.mjs';

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
const pair = pgbenchPair({ db: values.db, scale: values.scale, protocol: values.protocol });

const fmt = (n, d = 1) => n.toFixed(d);
try {
  console.log(
    `database ${values.db}, query mode ${values.protocol}, scale ${values.scale}, clients ${clientCounts.join(', ')}, ${values.time} s per run, ${values.rounds} round(s)`,
  );
  printTimingNote();
  await pair.prepare();
  const rows = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const mode of builtins)
      for (const clients of clientCounts) {
        const pg = await pair.runPeer(mode, clients, values.time);
        const hr = await pair.runHeadroom(mode, clients, values.time);
        rows.push({ round, mode, clients, pg, hr });
        console.log(
          `round ${round} ${mode} -c ${clients}: pgbench ${fmt(pg.tps)} tps ${fmt(pg.cpuUs)} us/txn; headroom ${fmt(hr.tps)} tps ${fmt(hr.cpuUs)} us/txn (in-run ${fmt(hr.inRunCpuUs)}, transport ${hr.transport})`,
        );
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
  await pair.cleanup();
}
