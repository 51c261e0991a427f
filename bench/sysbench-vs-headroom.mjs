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
//        [--protocol prepared] (sysbench --db-ps-mode=auto, its default, and headroom --protocol
//                 prepared; simple: --db-ps-mode=disable and --protocol simple)
//
// CPU is the whole client process's user+system time (bash's `times` over the child), so both
// tools pay for their own start-up. Both draw keys uniformly (sysbench --rand-type=uniform).
// bench/client-efficiency.mjs runs this comparison and the pgbench one together, with medians.
import { parseArgs } from 'node:util';
import { sysbenchPair } from './lib/peers.mjs';
import { printTimingNote } from './timed.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'mariadb://root@127.0.0.1:3306/headroom_sysbench' },
    clients: { type: 'string', default: '8' },
    time: { type: 'string', default: '20' },
    'table-size': { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '1' },
    tests: { type: 'string', default: 'oltp_point_select,oltp_read_write' },
    protocol: { type: 'string', default: 'prepared' },
  },
});
const pair = sysbenchPair({ db: values.db, tableSize: values['table-size'], protocol: values.protocol });

const fmt = (n, d = 1) => n.toFixed(d);
try {
  console.log(
    `database ${values.db}, table size ${values['table-size']}, ${values.clients} clients, ${values.time} s per run, ${values.rounds} round(s), ${values.protocol} statements`,
  );
  printTimingNote();
  await pair.prepare();
  const rows = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const test of values.tests.split(',')) {
      const sb = await pair.runPeer(test, values.clients, values.time);
      const hr = await pair.runHeadroom(test, values.clients, values.time);
      rows.push({ round, test, sb, hr });
      console.log(
        `round ${round} ${test}: sysbench ${fmt(sb.tps)} tps ${fmt(sb.cpuUs)} us/txn; headroom ${fmt(hr.tps)} tps ${fmt(hr.cpuUs)} us/txn (transport ${hr.transport}, ${hr.failed} failed, tables loaded by headroom: ${hr.loadedBy})`,
      );
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
  await pair.cleanup();
}
