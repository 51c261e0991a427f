#!/usr/bin/env node
// A server that stops answering, seen by headroom and by the peer tools: each tool runs tpcb-like
// (pgbench: PostgreSQL; sysbench oltp_read_write: MariaDB) for --time seconds on a throwaway server
// of its own, which is frozen (SIGSTOP of all its processes) --at seconds into the run for --for
// seconds, then let go. Prints each tool's wall time, exit code and the lines in which it tells the
// stall (or does not). Not a test; needs root and the PostgreSQL and MariaDB server binaries (the
// throwaway servers are the tests' own, from dist/test/helpers: run `npm run build` first).
//
//   node bench/stall-vs-peers.mjs [--time 10] [--at 3] [--for 15] [--clients 4] [--dbms postgres,mariadb]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { HEADROOM_CLI as CLI } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    time: { type: 'string', default: '10' },
    at: { type: 'string', default: '3' },
    for: { type: 'string', default: '15' },
    clients: { type: 'string', default: '4' },
    dbms: { type: 'string', default: 'postgres,mariadb' },
  },
});
const seconds = Number(values.time);
const at = Number(values.at);
const stallFor = Number(values.for);
const clients = values.clients;
const helpers = new URL('../dist/test/helpers/', import.meta.url);
const { startThrowawayPostgres } = await import(new URL('throwaway-postgres.js', helpers).href);
const { startThrowawayMariadb } = await import(new URL('throwaway-mariadb.js', helpers).href);

/** Runs a command, freezing the server `at` seconds after it started for `stallFor` seconds; its output and timing. */
function frozenRun(server, command, args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const freeze = setTimeout(() => {
      server.freeze();
      thaw = setTimeout(() => server.thaw(), stallFor * 1000);
    }, at * 1000);
    let thaw;
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(freeze);
      const wall = (performance.now() - started) / 1000;
      // The server is let go once the stall has lasted its time, whoever ended first.
      const rest = Math.max(0, (at + stallFor) * 1000 - (performance.now() - started));
      setTimeout(() => {
        clearTimeout(thaw);
        server.thaw();
        resolve({ code, wall, output });
      }, rest);
    });
  });
}

function show(tool, run, pick) {
  console.log(`\n== ${tool}: exit ${run.code}, wall ${run.wall.toFixed(1)} s (the run asked ${seconds} s; frozen at ${at} s for ${stallFor} s)`);
  const lines = run.output.split('\n').filter((l) => pick.test(l));
  // Nothing it would tell of a stall: its last words instead (an error).
  for (const line of lines.length > 0 ? lines : run.output.trim().split('\n').slice(-3)) console.log(`   ${line}`);
}

const HEADROOM_LINES =
  /^(status:|measured:|tps =|latency ms:|stall:|unfinished:| {2}terminal \d+ in|number of transactions|latency average|latency stddev|run failed:|progress: .*no transaction)/;

if (values.dbms.split(',').includes('postgres')) {
  const cluster = await startThrowawayPostgres(['host all all 127.0.0.1/32 trust'], ['CREATE DATABASE bench']);
  try {
    const url = `postgres://postgres@127.0.0.1:${cluster.port}/bench`;
    const pg = ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres'];
    await frozenRun({ freeze() {}, thaw() {} }, 'pgbench', [...pg, '-i', '-q', 'bench']);
    const pgbench = await frozenRun(cluster, 'pgbench', [...pg, '-c', clients, '-T', String(seconds), '-P', '1', 'bench']);
    show('pgbench 15', pgbench, /^(number of transactions|latency average|latency stddev|tps =|progress: (\d+\.\d) s, 0\.0 tps)/);
    const work = mkdtempSync(path.join(tmpdir(), 'headroom-stall-bench-'));
    const headroom = await frozenRun(cluster, process.execPath, [
      CLI,
      'run',
      'tpcb',
      '--db',
      url,
      '-c',
      clients,
      '-T',
      String(seconds),
      '--live=false',
      '--out',
      path.join(work, 'r.json'),
    ]);
    rmSync(work, { recursive: true, force: true });
    show('headroom (PostgreSQL)', headroom, HEADROOM_LINES);
  } finally {
    cluster.stop();
  }
}

if (values.dbms.split(',').includes('mariadb')) {
  const server = await startThrowawayMariadb();
  try {
    server.sql('CREATE DATABASE bench');
    const my = [`--mysql-host=127.0.0.1`, `--mysql-port=${server.port}`, '--mysql-user=root', '--mysql-db=bench', '--db-driver=mysql'];
    await frozenRun({ freeze() {}, thaw() {} }, 'sysbench', ['oltp_read_write', ...my, '--table-size=10000', 'prepare']);
    const sysbench = await frozenRun(server, 'sysbench', [
      'oltp_read_write',
      ...my,
      '--table-size=10000',
      `--threads=${clients}`,
      `--time=${seconds}`,
      '--report-interval=1',
      'run',
    ]);
    show('sysbench (MariaDB)', sysbench, /^\s*(transactions:|min:|avg:|max:|95th percentile:|total time:)|^\[ \d+s \].*tps: 0\.00/);
    const url = `mariadb://root@127.0.0.1:${server.port}/bench`;
    const work = mkdtempSync(path.join(tmpdir(), 'headroom-stall-bench-'));
    const init = await frozenRun({ freeze() {}, thaw() {} }, process.execPath, [CLI, 'init', 'tpcb', '--db', url]);
    if (init.code !== 0) throw new Error(init.output);
    const headroom = await frozenRun(server, process.execPath, [
      CLI,
      'run',
      'tpcb',
      '--db',
      url,
      '-c',
      clients,
      '-T',
      String(seconds),
      '--live=false',
      '--out',
      path.join(work, 'r.json'),
    ]);
    rmSync(work, { recursive: true, force: true });
    show('headroom (MariaDB)', headroom, HEADROOM_LINES);
  } finally {
    await server.stop();
  }
}
