#!/usr/bin/env node
// Schedule lag and latency under -R, pgbench and headroom side by side: the same built-in script,
// rate, clients and duration against one PostgreSQL database (pgbench's tables, loaded once by
// pgbench -i), each writing its -l log; the percentiles are computed here from both logs alike.
// Each rate runs --rounds rounds (pgbench then headroom, the order alternating from round to
// round); the tables give the median of each figure over the rounds, and each round's ratio of the
// two tools' lag p50 and p99 with their median. Not a test: on a busy machine
// both tools' lag grows with the load around them, so the load average is printed before and after.
//
//   node bench/rate-lag.mjs [--db postgres://postgres@127.0.0.1:5432/headroom_rate] [--rates 400,4000]
//        [--rounds 3] [--clients 4] [--time 8] [--scale 1] [--builtin select-only] [--protocol prepared]
//        [--warmup 0] (headroom only: seconds run before its -T, left out of its log; pgbench has no
//                      JIT to warm up, headroom's first second or two carry V8's compiling)
//
// Lag is the scheduled start to the actual start; latency counts from the scheduled start (both
// tools), so it holds the lag. Lines of failed or skipped transactions are left out. `lag-idle` is the
// lag of the transactions whose client was idle at their scheduled start (see readLogs). Client CPU per
// transaction: pgbench's whole process (bash's `times`; its start-up is a few milliseconds),
// headroom's own in-run figure (summary.clientCpu.usPerTransaction), which leaves its start-up out.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { timed } from './timed.mjs';
import { headroom } from './lib/headroom-cli.mjs';
import { median } from './lib/median.mjs';
import { runQueuePercent } from '../dist/src/reports/run-queue-text.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/headroom_rate' },
    rates: { type: 'string', default: '400,4000' },
    rounds: { type: 'string', default: '3' },
    clients: { type: 'string', default: '4' },
    time: { type: 'string', default: '8' },
    scale: { type: 'string', default: '1' },
    builtin: { type: 'string', default: 'select-only' },
    protocol: { type: 'string', default: 'prepared' },
    warmup: { type: 'string', default: '0' },
  },
});

/**
 * Lag and latency in microseconds of each committed transaction in the -l files of `prefix`
 * (pgbench's per-transaction format), and the lag of those whose client had ended its previous
 * transaction by the scheduled start (`idle`): the timer's own lateness, without the wait behind a
 * previous transaction that ran past the next one's schedule (more of those on a busy machine).
 */
function readLogs(dir, prefix) {
  const lag = [];
  const latency = [];
  const idle = [];
  for (const file of readdirSync(dir).filter((f) => f.startsWith(`${prefix}.`))) {
    const lastEnd = new Map();
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      const f = line.split(' ');
      if (f.length < 7) continue;
      const endUs = Number(f[4]) * 1e6 + Number(f[5]);
      const committed = /^\d+$/.test(f[2]);
      // A failed transaction ended too (its end time is the line's); a skipped one never ran.
      const previous = lastEnd.get(f[0]);
      if (f[2] !== 'skipped') lastEnd.set(f[0], endUs);
      if (!committed) continue;
      latency.push(Number(f[2]));
      lag.push(Number(f[6]));
      if (previous === undefined || previous <= endUs - Number(f[2])) idle.push(Number(f[6]));
    }
  }
  return { lag, latency, idle };
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

/** Each figure's median over the rounds; `negative` is summed (one early start in any round is one too many). */
function medians(rounds) {
  const out = {};
  for (const key of ['n', 'min', 'p50', 'p90', 'p99', 'max']) out[key] = median(rounds.map((r) => r[key]));
  out.negative = rounds.reduce((n, r) => n + r.negative, 0);
  return out;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
const rates = values.rates.split(',').map((r) => r.trim());
const url = new URL(values.db);
const database = url.pathname.slice(1);
const pgArgs = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
const psql = (sql) => timed('psql', [...pgArgs, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qc', sql]);
const work = mkdtempSync(path.join(tmpdir(), 'headroom-rate-'));
try {
  console.log(
    `database ${values.db}: -b ${values.builtin} -c ${values.clients} -T ${values.time}, query mode ${values.protocol}, scale ${values.scale}; ` +
      `rates ${rates.join(', ')}, ${values.rounds} round(s) each${values.warmup === '0' ? '' : `; headroom warms up ${values.warmup} s first (not logged)`}`,
  );
  console.log(`load average before: ${load()}`);
  await psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await psql(`CREATE DATABASE ${database}`);
  await timed('pgbench', [...pgArgs, '-i', '-q', '-s', values.scale, database]);

  for (const rate of rates) {
    const common = ['-b', values.builtin, '-R', rate, '-c', values.clients, '-T', values.time];
    const rounds = {
      pgbench: { lag: [], 'lag-idle': [], latency: [], cpuUs: [] },
      headroom: { lag: [], 'lag-idle': [], latency: [], cpuUs: [], timer: new Set(), cpuWait: [] },
    };
    for (let round = 0; round < Number(values.rounds); round++) {
      const prefix = (tool) => path.join(work, `${tool}-${rate}-${round}`);
      const runPgbench = async () => {
        const run = await timed('pgbench', [...pgArgs, '-n', '-M', values.protocol, ...common, '-j', '1', '-l', '--log-prefix', prefix('pgbench'), database]);
        return run.cpuSeconds * 1e6;
      };
      const runHeadroom = () => {
        const json = path.join(work, `headroom-${rate}-${round}.json`);
        headroom([
          'run',
          'tpcb',
          ...common,
          '--warmup',
          values.warmup,
          '--protocol',
          values.protocol,
          '-l',
          '--log-prefix',
          prefix('headroom'),
          '--db',
          values.db,
          '-P',
          '0',
          '--observe=false',
          '-o',
          json,
        ]);
        const summary = JSON.parse(readFileSync(json, 'utf8')).summary;
        rounds.headroom.cpuUs.push(summary.clientCpu.usPerTransaction);
        rounds.headroom.timer.add(summary.scheduleLagMs?.timer ?? 'not recorded');
        const waited = runQueuePercent(summary);
        if (waited !== undefined) rounds.headroom.cpuWait.push(waited);
      };
      let pgbenchCpuUs;
      if (round % 2 === 0) {
        pgbenchCpuUs = await runPgbench();
        runHeadroom();
      } else {
        runHeadroom();
        pgbenchCpuUs = await runPgbench();
      }
      for (const tool of ['pgbench', 'headroom']) {
        const { lag, latency, idle } = readLogs(work, path.basename(prefix(tool)));
        if (lag.length === 0) throw new Error(`${tool} logged no committed transaction in ${work}`);
        rounds[tool].lag.push(figures(lag));
        rounds[tool]['lag-idle'].push(figures(idle.length > 0 ? idle : [0]));
        rounds[tool].latency.push(figures(latency));
        if (tool === 'pgbench') rounds.pgbench.cpuUs.push(pgbenchCpuUs / lag.length);
      }
    }

    const ms = (us) => (us / 1000).toFixed(3);
    console.log('');
    console.log(`-R ${rate}: medians over ${values.rounds} round(s)`);
    console.log('tool      figure   transactions  min ms  p50 ms  p90 ms  p99 ms  max ms  negative');
    for (const tool of ['pgbench', 'headroom']) {
      for (const what of ['lag', 'lag-idle', 'latency']) {
        const f = medians(rounds[tool][what]);
        console.log(
          `${tool.padEnd(9)} ${what.padEnd(8)} ${String(Math.round(f.n)).padStart(12)}  ${ms(f.min).padStart(6)}  ${ms(f.p50).padStart(6)}  ${ms(f.p90).padStart(6)}  ${ms(f.p99).padStart(6)}  ${ms(f.max).padStart(6)}  ${String(f.negative).padStart(8)}`,
        );
      }
    }
    const perRound = (xs) => xs.map((x) => x.toFixed(1)).join(' ');
    console.log(
      `client CPU us/transaction: pgbench ${median(rounds.pgbench.cpuUs).toFixed(1)} (whole process; rounds ${perRound(rounds.pgbench.cpuUs)}), ` +
        `headroom ${median(rounds.headroom.cpuUs).toFixed(1)} (in-run; rounds ${perRound(rounds.headroom.cpuUs)})`,
    );
    // Both tools' tails move with the machine from round to round (here pgbench's own lag p99 has
    // ranged from 0.2 to 1.3 ms at -R 400); the rounds' own ratios, each of two runs back to back,
    // say more of the tools than a ratio of the medians.
    const ratios = (p) =>
      rounds.headroom.lag.map((h, i) => {
        const peer = rounds.pgbench.lag[i][p];
        return peer > 0 ? h[p] / peer : Number.NaN;
      });
    for (const p of ['p50', 'p99']) {
      const r = ratios(p);
      console.log(`lag ${p} headroom / pgbench: median ${median(r).toFixed(2)} (rounds ${r.map((x) => x.toFixed(2)).join(' ')})`);
    }
    console.log(`headroom paced by: ${[...rounds.headroom.timer].join(', ')}`);
    // The job thread's time ready to run but without a CPU: the client's part in its own lag.
    if (rounds.headroom.cpuWait.length > 0)
      console.log(
        `headroom's job thread waited for a CPU: median ${median(rounds.headroom.cpuWait).toFixed(2)}% of the measured time (rounds ${perRound(rounds.headroom.cpuWait)})`,
      );
  }
  console.log('');
  console.log(`load average after: ${load()}`);
} finally {
  await psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((e) => console.error(`cleanup: ${e.message}`));
  rmSync(work, { recursive: true, force: true });
}
