#!/usr/bin/env node
// Client CPU of headroom's Firebird client against its PostgreSQL client: the same workload
// (-b select-only, then -b tpcb-like --max-tries 20), scale, clients and duration, each DBMS in a
// database of its own made for the run and dropped after it. Rows per script: PostgreSQL flat out,
// Firebird flat out, and PostgreSQL held to Firebird's tps with -R, so that both clients are
// compared at the same rate (per-transaction CPU falls as tps rises: more answers per wakeup).
// Then a "rare conflicts" tpcb-like at --rare-scale (default 4): more branches, so Firebird's
// update conflicts (and the retries they cost) are rare. Prints tps, client CPU (headroom's in-run
// figure summary.clientCpu) per transaction with its user and system parts, per attempt (tpcb-like
// retries update conflicts; their CPU counts) and per statement (the script's SQL statements per
// attempt; a retried attempt often stops at its first UPDATE, so this is a lower bound there), and
// Firebird / PostgreSQL per transaction, against the rate-held row; the goal is 1.5 or less. On a
// busy machine run it several times. --before DIST adds the same Firebird runs with another
// build's CLI: that build's dist directory (its parent holding package.json, node_modules, build/).
//
//   node bench/firebird-client.mjs [--clients 4] [--time 5] [--scale 1] [--rare-scale 4 (0: none)] [--before DIST]
//        [--fb-folder /var/lib/firebird/3.0/data] [--fb-user SYSDBA:masterkey] [--pg postgres://postgres@127.0.0.1:5432]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '4' },
    time: { type: 'string', default: '5' },
    scale: { type: 'string', default: '1' },
    'rare-scale': { type: 'string', default: '4' },
    before: { type: 'string' },
    'fb-folder': { type: 'string', default: '/var/lib/firebird/3.0/data' },
    'fb-user': { type: 'string', default: 'SYSDBA:masterkey' },
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
  },
});

for (const option of ['clients', 'time', 'scale', 'rare-scale']) {
  const n = Number(values[option]);
  if (!Number.isInteger(n) || n < (option === 'rare-scale' ? 0 : 1)) {
    console.error(`--${option} ${values[option]}: give a whole number${option === 'rare-scale' ? ' (0: no rare-conflicts row)' : ' of 1 or more'}`);
    process.exit(2);
  }
}

const DIST = fileURLToPath(new URL('../dist', import.meta.url));
const name = `headroom_fbclient_${process.pid}`;
const fbUrl = `firebird://${values['fb-user']}@127.0.0.1:3050/${path.join(values['fb-folder'], `${name}.fdb`)}`;
const pgUrl = `${values.pg}/${name}`;
const out = mkdtempSync(path.join(tmpdir(), 'headroom-fbclient-'));

function cli(dist, args) {
  // The bin (the bundle); a --before build older than the bundle has only dist/src.
  const bin = existsSync(path.join(dist, 'bundle/code/bin.js')) ? path.join(dist, 'bundle/code/bin.js') : path.join(dist, 'src/cli/bin.js');
  const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
  if (run.status !== 0) throw new Error(`headroom ${args.join(' ')} exited ${run.status}: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`);
}

/** The SQL statements of one attempt of each script (BEGIN and END not counted). */
const STATEMENTS = { 'select-only': 1, 'tpcb-like': 5 };

function measure(dist, url, script, rate) {
  const file = path.join(out, `${script}-${Date.now()}.json`);
  const extra = script === 'tpcb-like' ? ['--max-tries', '20'] : [];
  if (rate !== undefined) extra.push('-R', String(Math.max(1, Math.round(rate))));
  cli(dist, ['run', 'tpcb', '--db', url, '-b', script, '-c', values.clients, '-T', values.time, '-P', '0', '-o', file, ...extra]);
  const { summary } = JSON.parse(readFileSync(file, 'utf8'));
  const ended = summary.transactions + (summary.failed ?? 0);
  // Retried attempts cost client CPU too, but only ended transactions divide usPerTransaction.
  const attempts = (ended + (summary.retried ?? 0)) / ended;
  const us = summary.clientCpu.usPerTransaction;
  return {
    tps: summary.tps,
    us,
    user: summary.clientCpu.userUs / ended,
    system: summary.clientCpu.systemUs / ended,
    attempts,
    perAttempt: us / attempts,
    perStatement: us / attempts / STATEMENTS[script],
  };
}

const HEADER = 'script         scale  client                            tps   us/tx   user  sys  attempts/tx  us/attempt  us/stmt  FB/PG';

function report(label, scale, rows, base) {
  for (const [who, m] of rows) {
    const ratio = who.startsWith('Firebird') ? (m.us / base.us).toFixed(2) : '';
    const split = `${m.user.toFixed(0).padStart(6)} ${m.system.toFixed(0).padStart(4)}`;
    console.log(
      `${label.padEnd(14)} ${String(scale).padStart(5)}  ${who.padEnd(30)} ${m.tps.toFixed(0).padStart(6)} ${m.us.toFixed(1).padStart(7)} ${split}  ${m.attempts
        .toFixed(2)
        .padStart(11)}  ${m.perAttempt.toFixed(1).padStart(10)}  ${m.perStatement.toFixed(1).padStart(7)}  ${ratio}`,
    );
  }
}

/** One script at one scale: PostgreSQL flat out, Firebird (before, this build), PostgreSQL at Firebird's tps. */
function compare(label, script, scale) {
  const pg = measure(DIST, pgUrl, script);
  const rows = [['PostgreSQL (own client)', pg]];
  if (values.before) rows.push(['Firebird (--before build)', measure(values.before, fbUrl, script)]);
  const fb = measure(DIST, fbUrl, script);
  rows.push(['Firebird (this build)', fb]);
  const held = measure(DIST, pgUrl, script, fb.tps);
  rows.push([`PostgreSQL -R ${Math.round(fb.tps)}`, held]);
  report(label, scale, rows, held);
}

function init(scale) {
  cli(DIST, ['init', 'tpcb', '--db', fbUrl, '-s', String(scale)]);
  cli(DIST, ['init', 'tpcb', '--db', pgUrl, '-s', String(scale)]);
}

const { createFirebirdDatabase, dropFirebirdDatabase } = await import(path.join(DIST, 'src/drivers/firebird/database.js'));
const { resolveTarget } = await import(path.join(DIST, 'src/config/target.js'));
const fbTarget = resolveTarget(fbUrl, {});
const psql = (sql) => execFileSync('psql', [values.pg + '/postgres', '-v', 'ON_ERROR_STOP=1', '-qc', sql], { stdio: 'pipe' });
try {
  await createFirebirdDatabase(fbTarget);
  psql(`CREATE DATABASE ${name}`);
  init(values.scale);
  console.log(
    `${values.clients} clients, ${values.time} s per run; client CPU is headroom's in-run figure; FB/PG: per transaction, against PostgreSQL held to Firebird's tps`,
  );
  console.log(HEADER);
  for (const script of ['select-only', 'tpcb-like']) compare(script, script, values.scale);
  const rare = Number(values['rare-scale']);
  if (rare > 0 && rare !== Number(values.scale)) {
    init(rare);
    compare('rare conflicts', 'tpcb-like', rare);
  }
} finally {
  await dropFirebirdDatabase(fbTarget).catch((e) => console.error(`cleanup: ${e.message}`));
  try {
    psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } catch (e) {
    console.error(`cleanup: ${e.message}`);
  }
  rmSync(out, { recursive: true, force: true });
}
