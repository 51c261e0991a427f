// The two sides of the side-by-side benchmarks: a peer tool (pgbench, sysbench) and headroom on
// the same database, same clients, same duration. Each run is a child process timed by bash's
// `times` (timed.mjs), so both tools pay for their own start-up in their CPU per transaction.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { timed } from '../timed.mjs';
import { HEADROOM_CLI as CLI } from './headroom-cli.mjs';
// The result's own reading of its job threads' wait for a CPU (tsc's output: the benches run the build).
import { runQueuePercent } from '../../dist/src/reports/run-queue-text.js';

const SYSBENCH_SCRIPTS = fileURLToPath(new URL('../sysbench/', import.meta.url));

/**
 * Runs a measured command (timed.mjs) under the kernel's scheduling policy the pair asked for:
 * `normal` as it is, `batch` under `chrt -b 0` (SCHED_BATCH: the tool never preempts a server
 * thread when it wakes). Both tools of a pair run under the same one.
 */
function launcher(sched) {
  if (!['normal', 'batch'].includes(sched)) throw new Error(`--sched: "${sched}" is not normal or batch`);
  return (command, args, env) => (sched === 'batch' ? timed('chrt', ['-b', '0', command, ...args], env) : timed(command, args, env));
}

/** headroom run with these arguments under --protocol `protocol`; its TPS and CPU per transaction (whole process, and in-run). */
async function runHeadroom(work, label, args, protocol, env, sched) {
  const out = path.join(work, `${label}-${Date.now()}.json`);
  const r = await launcher(sched)(process.execPath, [CLI, 'run', 'tpcb', ...args, '--protocol', protocol, '-P', '0', '--out', out], env);
  const result = JSON.parse(readFileSync(out, 'utf8'));
  // The pair is compared in one query mode: a run that sent another would be a different comparison.
  if (result.config.protocol !== protocol) throw new Error(`headroom ran --protocol ${result.config.protocol}, the comparison asked for ${protocol}`);
  // And under the scheduling asked for, as the result itself saw it.
  if (sched === 'batch' && result.summary.clientCpu.scheduling?.policy !== 'batch')
    throw new Error(`headroom's result says it ran under ${JSON.stringify(result.summary.clientCpu.scheduling)}, the comparison asked for SCHED_BATCH`);
  const transactions = result.summary.transactions + result.summary.failed;
  return {
    tps: result.summary.tps,
    transactions,
    cpuUs: (r.cpuSeconds * 1e6) / transactions,
    userUs: (r.userSeconds * 1e6) / transactions,
    inRunCpuUs: result.summary.clientCpu.usPerTransaction,
    failed: result.summary.failed,
    loadedBy: result.data.loadedBy,
    transport: result.summary.clientCpu.transport,
    waits: result.summary.clientCpu.waits,
    // The job thread's time ready to run without a CPU, as a share of the measured time (absent off Linux).
    cpuWaitPercent: runQueuePercent(result.summary),
  };
}

/**
 * pgbench's built-in scripts against pgbench's tables (loaded once by pgbench -i), both tools in
 * one query mode (pgbench -M, headroom --protocol) and one sslmode: `disable` unless a run asks
 * for `require` (both would otherwise take libpq's prefer, TLS whenever the server has it).
 */
export function pgbenchPair({ db, scale, protocol = 'prepared', sched = 'normal' }) {
  const launch = launcher(sched);
  const url = new URL(db);
  const database = url.pathname.slice(1);
  const pgArgs = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
  const work = mkdtempSync(path.join(tmpdir(), 'headroom-bench-'));
  const psql = (sql) => timed('psql', [...pgArgs, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qc', sql]);
  return {
    peer: 'pgbench',
    async prepare() {
      await psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await psql(`CREATE DATABASE ${database}`);
      await timed('pgbench', [...pgArgs, '-i', '-q', '-s', String(scale), database]);
    },
    async runPeer(test, clients, seconds, { sslmode = 'disable', jobs = 1 } = {}) {
      const r = await launch(
        'pgbench',
        [...pgArgs, '-n', '-M', protocol, '-b', test, '-c', String(clients), '-j', String(jobs), '-T', String(seconds), database],
        {
          PGSSLMODE: sslmode,
        },
      );
      const transactions = Number(/number of transactions actually processed: (\d+)/.exec(r.output)[1]);
      const tps = Number(/tps = ([\d.]+)/.exec(r.output)[1]);
      return { tps, transactions, cpuUs: (r.cpuSeconds * 1e6) / transactions, userUs: (r.userSeconds * 1e6) / transactions };
    },
    runHeadroom(test, clients, seconds, { env = {}, extra = [], sslmode = 'disable' } = {}) {
      const withMode = new URL(db);
      withMode.searchParams.set('sslmode', sslmode);
      return runHeadroom(work, test, ['--db', withMode.href, '-b', test, '-c', String(clients), '-T', String(seconds), ...extra], protocol, env, sched);
    },
    async cleanup() {
      await psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((e) => console.error(`cleanup: ${e.message}`));
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/**
 * sysbench's oltp_point_select and oltp_read_write against the table sysbench prepared (sbtest1);
 * headroom runs the same statements from script files (bench/sysbench/*.sql) on that table. Both
 * tools in one query mode: `prepared` is sysbench's default (--db-ps-mode=auto, server-side
 * prepared statements) and headroom's --protocol prepared; `simple` is --db-ps-mode=disable and
 * --protocol simple (statements as text, values inlined). headroom's own default for a script file
 * is simple, as pgbench's is, so without this the two would send different requests.
 */
export function sysbenchPair({ db, tableSize, protocol = 'prepared', sched = 'normal' }) {
  const launch = launcher(sched);
  const psMode = { prepared: 'auto', simple: 'disable' }[protocol];
  if (!psMode) throw new Error(`protocol "${protocol}": sysbench has prepared (--db-ps-mode=auto) or simple (disable)`);
  const url = new URL(db);
  const database = url.pathname.slice(1);
  const mysqlArgs = ['-h', url.hostname, '-P', url.port || '3306', '-u', decodeURIComponent(url.username || 'root')];
  const connection = [
    '--db-driver=mysql',
    `--mysql-host=${url.hostname}`,
    `--mysql-port=${url.port || '3306'}`,
    `--mysql-user=${decodeURIComponent(url.username || 'root')}`,
    `--mysql-db=${database}`,
    '--tables=1',
    `--table-size=${tableSize}`,
    '--rand-type=uniform',
    `--db-ps-mode=${psMode}`,
  ];
  const work = mkdtempSync(path.join(tmpdir(), 'headroom-sysbench-'));
  const mysql = (sql) => timed('mariadb', [...mysqlArgs, '-e', sql]);
  return {
    peer: 'sysbench',
    async prepare() {
      await mysql(`DROP DATABASE IF EXISTS ${database}; CREATE DATABASE ${database}`);
      // Any oltp_* test prepares the same table (oltp_common.lua): sbtest1 with k's secondary index.
      await timed('sysbench', ['oltp_read_write', ...connection, 'prepare']);
    },
    async runPeer(test, clients, seconds) {
      const r = await launch('sysbench', [test, ...connection, `--threads=${clients}`, `--time=${seconds}`, '--report-interval=0', 'run']);
      const m = /transactions:\s+(\d+)\s+\(([\d.]+) per sec/.exec(r.output);
      if (!m) throw new Error(`no transactions line in sysbench's output:\n${r.output}`);
      const transactions = Number(m[1]);
      const errors = Number(/ignored errors:\s+(\d+)/.exec(r.output)?.[1] ?? 0);
      return {
        tps: Number(m[2]),
        transactions,
        cpuUs: (r.cpuSeconds * 1e6) / (transactions + errors),
        userUs: (r.userSeconds * 1e6) / (transactions + errors),
      };
    },
    runHeadroom(test, clients, seconds, { env = {}, extra = [] } = {}) {
      const args = [
        '--db',
        db,
        '-f',
        path.join(SYSBENCH_SCRIPTS, `${test}.sql`),
        '-D',
        `table_size=${tableSize}`,
        '-c',
        String(clients),
        '-T',
        String(seconds),
        '--max-tries',
        '10',
        ...extra,
      ];
      return runHeadroom(work, test, args, protocol, env, sched);
    },
    async cleanup() {
      await mysql(`DROP DATABASE IF EXISTS ${database}`).catch((e) => console.error(`cleanup: ${e.message}`));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
