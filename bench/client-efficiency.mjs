#!/usr/bin/env node
// headroom's client efficiency against the peer tools, the four comparisons in one run:
//   pgbench  select-only and tpcb-like (PostgreSQL, pgbench's tables and built-in scripts)
//   sysbench oltp_point_select and oltp_read_write (MariaDB, sysbench's table; headroom runs the
//            same statements from bench/sysbench/*.sql)
// Same database, same clients, same duration, back to back; the order within a pair alternates
// from round to round, so neither tool always runs on a warmer cache. Prints every run, then per
// comparison the medians and the median of the per-round ratios (headroom / peer). Not a test:
// run it on a quiet machine.
//
//   node bench/client-efficiency.mjs [--clients 8] [--time 10] [--rounds 3]
//        [--tests pgbench:select-only,pgbench:tpcb-like,sysbench:oltp_point_select,sysbench:oltp_read_write]
//        [--protocol prepared] (both tools of every pair in one query mode: pgbench -M and sysbench
//                 --db-ps-mode=auto against headroom --protocol prepared; simple: pgbench -M simple,
//                 sysbench --db-ps-mode=disable, headroom --protocol simple)
//        [--transports native] (native,node: headroom once on each, HEADROOM_TRANSPORT)
//        [--spin auto] (auto,on,off: headroom once with each HEADROOM_SPIN, the reactor polling a
//                 little before it sleeps between answers where its trials find that cheaper,
//                 always, or never; rows labelled TRANSPORT/spin-auto|on|off; --tls's rows run
//                 with the first)
//        [--jobs 1] (1,2: every comparison once per job count, its rows labelled -j N; headroom
//                 -j N, pgbench -j N; sysbench runs a thread per client whatever it is)
//        [--sched normal] (batch: both tools of every pair under chrt -b 0, SCHED_BATCH, so that
//                 neither preempts a server thread when it wakes; headroom's result must say so)
//        [--tls] (the pgbench comparisons once more over TLS, sslmode=require on both sides: the
//                 server at --pg-db must have ssl = on; their rows say tls, and a last table
//                 sets each ratio with TLS beside the one without)
//        [--pg-db postgres://postgres@127.0.0.1:5432/headroom_efficiency] [--scale 10]
//        [--my-db mariadb://root@127.0.0.1:3306/headroom_efficiency] [--table-size 100000]
//
// CPU is the whole client process's user+system time (bash's `times`), start-up included, per
// committed or failed transaction; `in-run` is headroom's own figure over the measured period.
import { parseArgs } from 'node:util';
import { pgbenchPair, sysbenchPair } from './lib/peers.mjs';
import { printTimingNote } from './timed.mjs';
import { median } from './lib/median.mjs';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '8' },
    time: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    tests: { type: 'string', default: 'pgbench:select-only,pgbench:tpcb-like,sysbench:oltp_point_select,sysbench:oltp_read_write' },
    transports: { type: 'string', default: 'native' },
    spin: { type: 'string', default: 'auto' },
    jobs: { type: 'string', default: '1' },
    protocol: { type: 'string', default: 'prepared' },
    sched: { type: 'string', default: 'normal' },
    'pg-db': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/headroom_efficiency' },
    scale: { type: 'string', default: '10' },
    'my-db': { type: 'string', default: 'mariadb://root@127.0.0.1:3306/headroom_efficiency' },
    'table-size': { type: 'string', default: '100000' },
    tls: { type: 'boolean', default: false },
  },
});

const tests = values.tests.split(',').map((spec) => {
  const [peer, test] = spec.split(':');
  if (!['pgbench', 'sysbench'].includes(peer) || !test) throw new Error(`--tests: "${spec}" is not pgbench:SCRIPT or sysbench:TEST`);
  return { peer, test, tls: false };
});
const jobCounts = values.jobs.split(',').map((j) => {
  if (!/^[1-9]\d*$/.test(j)) throw new Error(`--jobs: "${j}" is not a whole number of jobs (threads) from 1 up`);
  return j;
});
// --tls: each pgbench comparison again with sslmode=require on both sides (headroom then runs on
// its TLS transport, whatever --transports says). sysbench's are left plaintext.
if (values.tls) tests.push(...tests.filter((t) => t.peer === 'pgbench').map((t) => ({ ...t, tls: true })));
// Each comparison once per job count: both tools of a pgbench pair at that -j; sysbench has no
// such setting (a thread per client), so its runs are the same at every count.
const specs = jobCounts.flatMap((jobs) => tests.map((t) => ({ ...t, jobs })));
const comparison = ({ peer, test, jobs }) => `${peer} ${test}${jobCounts.length > 1 ? ` -j ${jobs}` : ''}`;
const label = (spec) => `${comparison(spec)}${spec.tls ? ' tls' : ''}`;
const spins = values.spin.split(',').map((s) => {
  if (!['auto', 'on', 'off'].includes(s)) throw new Error(`--spin: "${s}" is not auto, on or off`);
  return s;
});
// headroom's variants in a round: each transport, with each HEADROOM_SPIN asked for.
const transports = values.transports
  .split(',')
  .flatMap((transport) => spins.map((spin) => ({ key: spins.length > 1 ? `${transport}/spin-${spin}` : transport, transport, spin })));
const variantWidth = Math.max(9, ...transports.map((v) => v.key.length));
const pairs = {
  pgbench: tests.some((t) => t.peer === 'pgbench')
    ? pgbenchPair({ db: values['pg-db'], scale: values.scale, protocol: values.protocol, sched: values.sched })
    : undefined,
  sysbench: tests.some((t) => t.peer === 'sysbench')
    ? sysbenchPair({ db: values['my-db'], tableSize: values['table-size'], protocol: values.protocol, sched: values.sched })
    : undefined,
};
const fmt = (n, d = 1) => n.toFixed(d);
// How the reactor waited, as its result says: in auto, how many of its trials polling won.
const pollingNote = (waits) => (waits?.mode === 'auto' ? `, polling won ${waits.pollingWon} of ${waits.trials} trials` : '');
// How long its job thread was ready to run but had no CPU (the server's processes share the cores).
const cpuWaitNote = (percent) => (percent === undefined ? '' : `, waited for a CPU ${percent.toFixed(0)}% of the time`);

try {
  console.log(
    `${values.clients} clients, ${values.time} s per run, ${values.rounds} round(s), ${values.protocol} statements, headroom -j ${jobCounts.join(', ')} on transport(s) ${transports.map((v) => v.key).join(', ')}${values.sched === 'batch' ? ', both tools under chrt -b 0 (SCHED_BATCH)' : ''}`,
  );
  printTimingNote();
  for (const pair of Object.values(pairs)) await pair?.prepare();
  const runs = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const spec of specs) {
      const { peer, test, tls, jobs } = spec;
      const pair = pairs[peer];
      const sslmode = peer === 'pgbench' ? (tls ? 'require' : 'disable') : undefined;
      const headroomRuns = async () => {
        const out = {};
        for (const { key: transport, ...variant } of tls ? [{ key: 'tls', spin: spins[0] }] : transports) {
          out[transport] = await pair.runHeadroom(test, values.clients, values.time, {
            env: { ...(tls ? {} : { HEADROOM_TRANSPORT: variant.transport }), HEADROOM_SPIN: variant.spin },
            extra: ['-j', jobs],
            sslmode,
          });
          // A row labelled tls must be a TLS run, and a plaintext one must not be.
          const encrypted = ['tls', 'node-tls'].includes(out[transport].transport);
          if (encrypted !== tls) throw new Error(`${label(spec)}: headroom ran on transport ${out[transport].transport}`);
        }
        return out;
      };
      let peerRun;
      let ours;
      if (round % 2 === 1) {
        peerRun = await pair.runPeer(test, values.clients, values.time, { sslmode, jobs });
        ours = await headroomRuns();
      } else {
        ours = await headroomRuns();
        peerRun = await pair.runPeer(test, values.clients, values.time, { sslmode, jobs });
      }
      runs.push({ round, spec, peerRun, ours });
      const mine = Object.keys(ours)
        .map(
          (t) =>
            `headroom/${t} ${fmt(ours[t].tps)} tps ${fmt(ours[t].cpuUs)} us/txn (user ${fmt(ours[t].userUs)}, in-run ${fmt(ours[t].inRunCpuUs)}, ${ours[t].failed} failed${pollingNote(ours[t].waits)}${cpuWaitNote(ours[t].cpuWaitPercent)})`,
        )
        .join('; ');
      console.log(`round ${round} ${label(spec)}: ${peer} ${fmt(peerRun.tps)} tps ${fmt(peerRun.cpuUs)} us/txn (user ${fmt(peerRun.userUs)}); ${mine}`);
    }
  }
  console.log('');
  const width = Math.max(29, ...specs.map((spec) => comparison(spec).length));
  console.log(
    `${'comparison'.padEnd(width)} ${'transport'.padEnd(variantWidth)}  peer tps  headroom tps  tps ratio  peer us/txn  headroom us/txn  in-run us/txn  cpu ratio`,
  );
  const ratios = new Map();
  for (const spec of specs) {
    const { tls } = spec;
    const mine = runs.filter((r) => r.spec === spec);
    for (const transport of tls ? ['tls'] : transports.map((v) => v.key)) {
      const peerTps = median(mine.map((r) => r.peerRun.tps));
      const ourTps = median(mine.map((r) => r.ours[transport].tps));
      const peerCpu = median(mine.map((r) => r.peerRun.cpuUs));
      const ourCpu = median(mine.map((r) => r.ours[transport].cpuUs));
      const inRun = median(mine.map((r) => r.ours[transport].inRunCpuUs));
      // Paired: each round's ratio, then their median (each round's two runs saw the same machine).
      const tpsRatio = median(mine.map((r) => r.ours[transport].tps / r.peerRun.tps));
      const cpuRatio = median(mine.map((r) => r.ours[transport].cpuUs / r.peerRun.cpuUs));
      ratios.set(`${comparison(spec)} ${transport}`, { tpsRatio, cpuRatio });
      console.log(
        `${comparison(spec).padEnd(width)} ${transport.padEnd(variantWidth)}  ${fmt(peerTps).padStart(8)}  ${fmt(ourTps).padStart(12)}  ${fmt(tpsRatio, 2).padStart(9)}  ${fmt(peerCpu).padStart(11)}  ${fmt(ourCpu).padStart(15)}  ${fmt(inRun).padStart(13)}  ${fmt(cpuRatio, 2).padStart(9)}`,
      );
    }
  }
  console.log("medians over the rounds; the ratios are medians of each round's headroom / peer (tps: higher is better for headroom, cpu: lower is better)");
  if (values.tls) {
    // The goal: TLS costs headroom no more than it costs pgbench, i.e. the same ratios with it as without.
    console.log('');
    console.log(`${'with TLS beside without'.padEnd(width)}  tps ratio tls  plaintext  cpu ratio tls  plaintext`);
    for (const spec of specs.filter((t) => t.tls)) {
      const secure = ratios.get(`${comparison(spec)} tls`);
      const plain = ratios.get(`${comparison(spec)} ${transports[0].key}`);
      console.log(
        `${comparison(spec).padEnd(width)}  ${fmt(secure.tpsRatio, 2).padStart(13)}  ${fmt(plain.tpsRatio, 2).padStart(9)}  ${fmt(secure.cpuRatio, 2).padStart(13)}  ${fmt(plain.cpuRatio, 2).padStart(9)}`,
      );
    }
    console.log(`plaintext: headroom on transport ${transports[0].key}; tls: both with sslmode=require (no certificate check), same server and clients`);
  }
} finally {
  for (const pair of Object.values(pairs)) await pair?.cleanup();
}
