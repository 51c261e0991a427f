#!/usr/bin/env node
// Does a server with durable settings keep every commit it acknowledged through a SIGKILL? What
// test/reliability/crash.test.ts does once, N rounds per DBMS: on a server of its own (the tests'
// throwaway PostgreSQL cluster and MariaDB server, imported from dist/test/helpers, so never a
// shared server), a fresh database per round, `headroom run tpcb --journal FILE -c 4 -T 14`, the
// server killed with SIGKILL at a moment that moves from --kill-from to --kill-to seconds into the
// run across the rounds, started again half a second later, then `headroom check --journal FILE`.
// One line per round: the kill moment (on the run's clock), the journal's acknowledged (A), refused
// (F) and unknown (U) commits with how many unknown ones the database kept, the acknowledged ones
// lost, the ids in the database without a journal line (extra), torn journal lines, whether tpcb's
// balances agree, how long the restart took and the outage the run reported; a last line per DBMS
// counts the rounds with a loss. Exit 1 when a round lost a commit, could not be checked or its
// balances differ (a run that failed is said under its row and checked all the same). Not a test:
// needs root (the servers run as postgres and mysql) and takes about 30 s a round.
//
//   npm run build && node bench/crash-durability.mjs [--rounds 20] [--dbms postgres,mariadb] [--time 14] [--kill-from 2] [--kill-to 10]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startThrowawayMariadb, throwawayMariadbUnavailable } from '../dist/test/helpers/throwaway-mariadb.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../dist/test/helpers/throwaway-postgres.js';
import { HEADROOM_CLI as CLI } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    dbms: { type: 'string', default: 'postgres,mariadb' },
    time: { type: 'string', default: '14' },
    'kill-from': { type: 'string', default: '2' },
    'kill-to': { type: 'string', default: '10' },
  },
});
const rounds = Number(values.rounds);
const time = Number(values.time);
const killFrom = Number(values['kill-from']);
const killTo = Number(values['kill-to']);
const usage = 'usage: node bench/crash-durability.mjs [--rounds 20] [--dbms postgres,mariadb] [--time 14] [--kill-from 2] [--kill-to 10]';
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(time) || time < 2) {
  console.error(`crash-durability: --rounds and --time take whole numbers (at least 1 and 2); ${usage}`);
  process.exit(2);
}
/** The kill moment of round i (0-based): spread evenly from --kill-from to --kill-to. */
const killAt = (i) => (rounds === 1 ? killFrom : killFrom + ((killTo - killFrom) * i) / (rounds - 1));
if (!(killFrom > 0 && killTo >= killFrom && killAt(rounds - 1) < time)) {
  console.error(`crash-durability: the kill moments must lie inside the run: 0 < --kill-from <= --kill-to < --time; ${usage}`);
  process.exit(2);
}

/** A server the bench may kill: its own, with durable settings, one fresh database per round. */
const SERVERS = {
  postgres: {
    unavailable: throwawayPostgresUnavailable,
    async open() {
      // Durable settings written out, though they are PostgreSQL's defaults: a commit is acknowledged once its WAL is flushed.
      const cluster = await startThrowawayPostgres(['host all all 127.0.0.1/32 trust'], [], ['synchronous_commit = on', 'fsync = on']);
      return {
        describe: `PostgreSQL cluster of its own on port ${cluster.port} (synchronous_commit = on, fsync = on)`,
        database(name) {
          cluster.psql(`CREATE DATABASE ${name}`);
          return `postgres://postgres@127.0.0.1:${cluster.port}/${name}`;
        },
        drop: (name) => cluster.psql(`DROP DATABASE ${name}`),
        crash: async () => cluster.crash(),
        start: async () => cluster.start(),
        stop: async () => cluster.stop(),
      };
    },
  },
  mariadb: {
    unavailable: throwawayMariadbUnavailable,
    async open() {
      const server = await startThrowawayMariadb(['--innodb-flush-log-at-trx-commit=1']);
      return {
        describe: `MariaDB server of its own on port ${server.port} (innodb_flush_log_at_trx_commit = 1)`,
        database(name) {
          server.sql(`CREATE DATABASE ${name}`);
          return `mariadb://root@127.0.0.1:${server.port}/${name}`;
        },
        drop: (name) => server.sql(`DROP DATABASE ${name}`),
        crash: () => server.crash(),
        start: () => server.start(),
        stop: () => server.stop(),
      };
    },
  },
};

const chosen = values.dbms.split(',');
for (const dbms of chosen) {
  if (!(dbms in SERVERS)) {
    console.error(`crash-durability: --dbms takes postgres, mariadb or both (comma-separated), not "${dbms}"`);
    process.exit(2);
  }
  const unavailable = SERVERS[dbms].unavailable();
  if (unavailable) {
    console.error(`crash-durability: ${unavailable}`);
    process.exit(2);
  }
}

/** headroom's CLI as a child; `onProgress` hears the seconds of each progress line as it comes. */
function headroom(args, cwd, onProgress) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, DATABASE_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (onProgress) for (const m of String(chunk).matchAll(/progress: (\d+\.\d) s/g)) onProgress(Number(m[1]));
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The journal's lines by outcome, as check --journal reads them (a last line without its newline is torn). */
function journalCounts(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const torn = lines.pop() === '' ? 0 : 1;
  const count = (outcome) => lines.filter((line) => line.startsWith(`${outcome} `)).length;
  return { acknowledged: count('A'), refused: count('F'), unknown: count('U'), torn: torn + lines.filter((l) => !/^[AFU] \S+$/.test(l)).length };
}

const header = 'round  kill s  acknowledged  refused  unknown (kept)  lost  extra  torn  balances  restart s  outage s';

/** One round on `server`: its table row, and whether it lost an acknowledged commit or failed. */
async function round(server, i, work) {
  const name = `crash_${i + 1}`;
  const url = server.database(name);
  try {
    const journal = path.join(work, `journal-${i + 1}.log`);
    const out = path.join(work, `result-${i + 1}.json`);
    let killedAt;
    let restart;
    let restarted = Promise.resolve();
    let timer;
    // The first progress line ties the bench's clock to the run's: the kill is timed from the run's start.
    const run = await headroom(['run', 'tpcb', '--db', url, '-c', '4', '-T', String(time), '--journal', journal, '--out', out], work, (t) => {
      if (timer) return;
      const runStart = Date.now() - t * 1000;
      timer = setTimeout(
        () => {
          killedAt = Date.now();
          restarted = server.crash().then(async () => {
            await new Promise((resolve) => setTimeout(resolve, 500));
            await server.start();
            restart = (Date.now() - killedAt) / 1000;
          });
        },
        Math.max(0, runStart + killAt(i) * 1000 - Date.now()),
      );
    });
    clearTimeout(timer);
    await restarted;
    const result = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : undefined;
    // The kill moment on the run's own clock (its start in the result): a progress line read late
    // on a busy machine makes the kill come later than planned, never earlier.
    const killed = killedAt === undefined || result === undefined ? undefined : (killedAt - Date.parse(result.startedAt)) / 1000;
    const label = `${String(i + 1).padStart(5)}  ${(killed === undefined ? '-' : killed.toFixed(1)).padStart(6)}`;
    if (killed === undefined) {
      const why = killedAt === undefined ? 'the run ended before the kill' : 'the run wrote no result';
      return { row: `${label}  ${why}, exit ${run.code}: ${run.stderr.trim().split('\n').at(-1)}`, failed: true };
    }
    if (result.target.durable !== true) throw new Error(`the result says the settings are not durable: ${JSON.stringify(result.target.durabilityRisks)}`);
    const outage =
      result.summary.connections.outages.map((o) => `${o.seconds}${o.recovered ? '' : ' (not recovered: the run ended first)'}`).join(' + ') || 'none';
    const check = await headroom(['check', 'tpcb', '--db', url, '--journal', journal], work);
    const kept = /acknowledged commits kept: (\d+) of (\d+) acknowledged commits are in the database, (\d+) lost/.exec(check.stdout);
    if (!kept)
      return { row: `${label}  check exited ${check.code} without its journal line: ${(check.stdout + check.stderr).trim().slice(0, 300)}`, failed: true };
    const counts = journalCounts(journal);
    if (Number(kept[2]) !== counts.acknowledged) throw new Error(`check read ${kept[2]} acknowledged commits, the journal has ${counts.acknowledged} A lines`);
    const lost = Number(kept[3]);
    const unknownKept = Number(/in flight with their outcome unknown \((\d+) kept/.exec(check.stdout)?.[1]);
    const extra = Number(/(\d+) in the database without a journal line/.exec(check.stdout)?.[1] ?? 0);
    const balances = /ok {4}balances agree/.test(check.stdout) ? 'agree' : 'DIFFER';
    let row = `${label}  ${String(counts.acknowledged).padStart(12)}  ${String(counts.refused).padStart(7)}  ${`${counts.unknown} (${unknownKept})`.padStart(14)}  ${String(lost).padStart(4)}  ${String(extra).padStart(5)}  ${String(counts.torn).padStart(4)}  ${balances.padStart(8)}  ${restart.toFixed(1).padStart(9)}  ${outage.padStart(8)}`;
    if (lost > 0)
      row += `\n       ${check.stdout
        .split('\n')
        .find((l) => l.includes('acknowledged commits kept'))
        ?.trim()}`;
    // A run that failed still journaled what it saw: its commits are checked all the same (a
    // transaction still waiting 3 s after the end, on a server slow to come back, fails a run).
    if (run.code !== 0) row += `\n       the run exited ${run.code}: ${result.statusReason}`;
    return { row, lost: lost > 0, failed: balances !== 'agree', runFailed: run.code !== 0 };
  } finally {
    // Each round's database goes: a PostgreSQL restart after a crash fsyncs every file of the
    // cluster, so the earlier rounds' databases would lengthen the later rounds' outages.
    server.drop(name);
  }
}

let failedAny = false;
for (const dbms of chosen) {
  const work = mkdtempSync(path.join(tmpdir(), 'headroom-crash-bench-'));
  const server = await SERVERS[dbms].open();
  let lostRounds = 0;
  let failedRounds = 0;
  let failedRuns = 0;
  try {
    console.log(
      `${dbms}: ${server.describe}; run tpcb -c 4 -T ${time} --journal, SIGKILL of the server at ${rounds === 1 ? killFrom : `${killFrom}-${killTo}`} s`,
    );
    console.log(header);
    for (let i = 0; i < rounds; i++) {
      const { row, lost, failed, runFailed } = await round(server, i, work);
      console.log(row);
      if (lost) lostRounds++;
      if (failed) failedRounds++;
      if (runFailed) failedRuns++;
    }
    const also = [
      failedRuns > 0 ? `${failedRuns} whose run failed (checked all the same)` : '',
      failedRounds > 0 ? `${failedRounds} not checked or with balances that differ` : '',
    ];
    console.log(
      `${dbms}: ${rounds} rounds, ${lostRounds} with lost > 0${also
        .filter(Boolean)
        .map((a) => `, ${a}`)
        .join('')}`,
    );
    if (lostRounds > 0 || failedRounds > 0) failedAny = true;
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
process.exit(failedAny ? 1 : 0);
