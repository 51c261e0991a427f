#!/usr/bin/env node
// Client CPU per transaction of headroom's Firebird client against its PostgreSQL client: the
// same workload (-b select-only, then -b tpcb-like --max-tries 20), scale, clients and duration,
// Firebird and PostgreSQL back to back, each in a database of its own made for the run and
// dropped after it. Prints tps, client CPU per transaction (headroom's in-run figure:
// summary.clientCpu.usPerTransaction, and its user and system parts), attempts per transaction
// (tpcb-like retries Firebird's update conflicts; their CPU counts, only ended transactions divide
// it) and the ratio Firebird / PostgreSQL; the goal is 1.5 or less. Per-transaction CPU falls as
// tps rises (more answers per wakeup), so on a busy machine run it several times. --before DIST
// adds the same Firebird runs with another build's CLI (e.g. a checkout whose Firebird driver was
// node-firebird: --before /path/to/that/dist).
//
//   node bench/firebird-client.mjs [--clients 4] [--time 5] [--scale 1] [--before DIST]
//        [--fb-folder /var/lib/firebird/3.0/data] [--fb-user SYSDBA:masterkey] [--pg postgres://postgres@127.0.0.1:5432]
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '4' },
    time: { type: 'string', default: '5' },
    scale: { type: 'string', default: '1' },
    before: { type: 'string' },
    'fb-folder': { type: 'string', default: '/var/lib/firebird/3.0/data' },
    'fb-user': { type: 'string', default: 'SYSDBA:masterkey' },
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
  },
});

const DIST = fileURLToPath(new URL('../dist', import.meta.url));
const name = `headroom_fbclient_${process.pid}`;
const fbUrl = `firebird://${values['fb-user']}@127.0.0.1:3050/${path.join(values['fb-folder'], `${name}.fdb`)}`;
const pgUrl = `${values.pg}/${name}`;
const out = mkdtempSync(path.join(tmpdir(), 'headroom-fbclient-'));

function cli(dist, args) {
  const run = spawnSync(process.execPath, [path.join(dist, 'src/cli/bin.js'), ...args], { encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
  if (run.status !== 0) throw new Error(`headroom ${args.join(' ')} exited ${run.status}: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`);
}

function measure(dist, url, script) {
  const file = path.join(out, `${script}-${Date.now()}.json`);
  const extra = script === 'tpcb-like' ? ['--max-tries', '20'] : [];
  cli(dist, ['run', 'tpcb', '--db', url, '-b', script, '-c', values.clients, '-T', values.time, '-P', '0', '-o', file, ...extra]);
  const { summary } = JSON.parse(readFileSync(file, 'utf8'));
  const ended = summary.transactions + (summary.failed ?? 0);
  return {
    tps: summary.tps,
    us: summary.clientCpu.usPerTransaction,
    user: summary.clientCpu.userUs / ended,
    system: summary.clientCpu.systemUs / ended,
    // Retried attempts cost client CPU too, but only ended transactions divide it.
    attempts: (ended + (summary.retried ?? 0)) / ended,
  };
}

const { createFirebirdDatabase, dropFirebirdDatabase } = await import(path.join(DIST, 'src/drivers/firebird/database.js'));
const { resolveTarget } = await import(path.join(DIST, 'src/config/target.js'));
const fbTarget = resolveTarget(fbUrl, {});
const psql = (sql) => execFileSync('psql', [values.pg + '/postgres', '-v', 'ON_ERROR_STOP=1', '-qc', sql], { stdio: 'pipe' });
try {
  await createFirebirdDatabase(fbTarget);
  psql(`CREATE DATABASE ${name}`);
  cli(DIST, ['init', 'tpcb', '--db', fbUrl, '-s', values.scale]);
  cli(DIST, ['init', 'tpcb', '--db', pgUrl, '-s', values.scale]);
  console.log(`tpcb scale ${values.scale}, ${values.clients} clients, ${values.time} s per run; client CPU per transaction is headroom's in-run figure`);
  console.log('script       client                       tps   us/tx   user sys  attempts/tx  ratio to PostgreSQL');
  for (const script of ['select-only', 'tpcb-like']) {
    const pg = measure(DIST, pgUrl, script);
    const rows = [['PostgreSQL (own client)', pg]];
    if (values.before) rows.push(['Firebird (--before build)', measure(values.before, fbUrl, script)]);
    rows.push(['Firebird (this build)', measure(DIST, fbUrl, script)]);
    for (const [label, m] of rows) {
      const ratio = label.startsWith('PostgreSQL') ? '' : (m.us / pg.us).toFixed(2);
      const split = `${m.user.toFixed(0).padStart(6)} ${m.system.toFixed(0).padStart(4)}`;
      console.log(
        `${script.padEnd(12)} ${label.padEnd(25)} ${m.tps.toFixed(0).padStart(6)} ${m.us.toFixed(1).padStart(7)} ${split}  ${m.attempts.toFixed(2).padStart(11)}  ${ratio}`,
      );
    }
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
