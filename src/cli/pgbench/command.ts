import { userInfo } from 'node:os';
import { DbError } from '../../drivers/errors.js';
import { ScriptSyntaxError, UserError } from '../../errors.js';
import { TOOL_VERSION } from '../../result/version.js';
import { redact } from '../../config/redact.js';
import { conninfoPairs } from '../../config/conninfo.js';
import { sortParameters } from '../../config/parameters.js';
import { serverTargetOf } from '../../config/target.js';
import type { RunResult } from '../../result/result.js';
import { pgbenchBlock, pgbenchProgressLine, scheduleTimerText } from '../../reports/pgbench-text.js';
import { pgbenchVacuum } from '../../workloads/tpcb/pgbench-vacuum.js';
import type { GenerationProgress } from '../../workloads/tpcb/pgbench-init.js';
import { redirectLogLines } from '../../session/log-line.js';
import { GetoptError } from './getopt.js';
import { BuiltinListing, parsePgbenchArgs, PgbenchUsageError, type PgbenchConnection, type PgbenchInit, type PgbenchRun } from './options.js';
import { stuckPlace } from '../../metrics/stuck.js';
import { STOP_GRACE_MS } from '../../engine/stop-signal.js';

const HELP = `headroom pgbench runs pgbench's command line: a benchmarking tool for PostgreSQL
(and, with a URL as DBNAME, for MariaDB, SQLite and Firebird).

Usage:
  headroom pgbench [OPTION]... [DBNAME | URL]

Initialization options:
  -i, --initialize, then -I STEPS (dtgGvpf), -F FILLFACTOR, -n, -q, -s SCALE, --foreign-keys,
  --index-tablespace=NAME, --partition-method=range|hash, --partitions=N, --tablespace=NAME,
  --unlogged-tables
Options to select what to run:
  -b NAME[@W], -f FILE[@W], -N, -S
Benchmarking options:
  -c CLIENTS, -C, -D NAME=VALUE, -j JOBS, -l, -L MS, -M simple|extended|prepared, -n, -P SEC,
  -r, -R TPS, -s SCALE, -t N, -T SEC, -v, --aggregate-interval=SEC, --failures-detailed,
  --log-prefix=PREFIX, --max-tries=N (0: no limit, with -T or -L), --progress-timestamp,
  --random-seed=SEED, --sampling-rate=RATE, --verbose-errors
Common options:
  -d, -h HOST, -p PORT, -U USER, DBNAME (else PGDATABASE) or a key=value connection string,
  or a headroom URL as DBNAME (mariadb://..., sqlite:FILE, firebird://...) for another DBMS
headroom's own options:
  --headroom-summary (headroom's summary after pgbench's lines),
  --headroom-out FILE (write headroom's result JSON)

Report bugs to headroom's issue tracker.`;

/** The pgbench whose command line headroom pgbench answers to, named first as `pgbench -V` names itself. */
export const PGBENCH_VERSION_LINE = `pgbench (PostgreSQL) 15 compatible, headroom-oltp ${TOOL_VERSION}`;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `headroom pgbench [pgbench's options] [dbname]`: pgbench's command line, run by headroom's
 * engine and interpreter, answered with pgbench's lines and exit codes (1: a bad command line or
 * script, or no connection; 2: a client aborted). headroom's notes are dropped; its summary and
 * result file come only with --headroom-summary and --headroom-out FILE.
 */
export async function pgbenchCommand(argv: readonly string[], env: Env = process.env): Promise<number> {
  const err = (text: string): void => void process.stderr.write(text);
  // An error may quote the command line (a connection string with its password): none is printed.
  const fail = (text: string): void => err(redact(text));
  if (argv[0] === '--help' || argv[0] === '-?') return (process.stdout.write(`${HELP}\n`), 0);
  // pgbench's own form first, as scripts parse it; then what answers: headroom, not PostgreSQL's binary.
  if (argv[0] === '--version' || argv[0] === '-V') return (process.stdout.write(`${PGBENCH_VERSION_LINE}\n`), 0);
  let parsed: PgbenchInit | PgbenchRun;
  try {
    parsed = parsePgbenchArgs(argv, env);
  } catch (error) {
    if (error instanceof GetoptError) {
      fail(`headroom pgbench: ${error.message}\nheadroom pgbench: hint: Try "headroom pgbench --help" for more information.\n`);
      return 1;
    }
    if (error instanceof BuiltinListing) return (err(error.message), 0);
    if (error instanceof PgbenchUsageError) {
      fail(`headroom pgbench: error: ${error.message}\n${error.more.map((line) => `headroom pgbench: ${line}\n`).join('')}`);
      return 1;
    }
    throw error;
  }
  const notes: string[] = [];
  redirectLogLines((message) => void notes.push(message));
  try {
    if (parsed.mode === 'init') {
      const { initWithStyle } = await import('../data-verbs.js');
      return await initWithStyle(initArgs(parsed, env), {
        announce: (line) => err(`${line}\n`),
        doneLine: (line) => err(`${line}\n`),
        progress: generationProgress(err),
        quiet: parsed.quiet,
      });
    }
    const { runWithStyle } = await import('../run.js');
    return await runWithStyle(runArgs(parsed, env), runStyle(parsed, env));
  } catch (error) {
    if (error instanceof UserError || error instanceof DbError) {
      // No connection: libpq's words for each server tried (the driver's report), then pgbench's own line.
      if (error instanceof DbError && error.connecting && error.report !== undefined)
        return (fail(`headroom pgbench: error: ${error.report}\nheadroom pgbench: error: could not create connection for setup\n`), 1);
      fail(`headroom pgbench: error: ${error.message}\n`);
      if (error instanceof ScriptSyntaxError) err(`${error.excerpt.join('\n')}\n`);
      else if (error.hint) fail(`headroom pgbench: hint: ${error.hint}\n`);
      return 1;
    }
    throw error;
  } finally {
    redirectLogLines((message) => void process.stderr.write(`${message}\n`));
  }
}

/**
 * The dbname argument, -h, -p, -U and the PG* environment as libpq takes them (the user
 * defaulting to the system user's name, the database to the user), or a headroom URL given as
 * the dbname for another DBMS.
 */
export function targetUrl(c: PgbenchConnection, env: Env): string {
  // A URL first, as libpq tells them apart: its query string (?sslmode=disable) has "=" too, and a
  // key=value string cannot start with a scheme.
  if (c.dbname !== undefined && /^[a-z][a-z0-9+]*:/i.test(c.dbname)) {
    const conflict = [c.host && '-h', c.port && '-p', c.user && '-U'].find(Boolean);
    if (conflict) throw new UserError(`${conflict} cannot be combined with a URL as the dbname`, 'put the host, port or user into the URL');
    return c.dbname;
  }
  const params = new Map<string, string>();
  if (c.host !== undefined) params.set('host', c.host);
  if (c.port !== undefined) params.set('port', c.port);
  params.set('user', c.user ?? env['PGUSER'] ?? userInfo().username);
  // A dbname with "=" is libpq's key=value connection string; pgbench passes it last, so its keys win over -h, -p and -U.
  if (c.dbname !== undefined && c.dbname.includes('=')) {
    const pairs = conninfoPairs(c.dbname);
    // A key the URL would refuse is named as the connection string's.
    sortParameters('postgres', pairs, 'the connection string');
    for (const [key, value] of pairs) params.set(key, value);
  } else if (c.dbname !== undefined) params.set('dbname', c.dbname);
  // Percent-encoded as the URL parser decodes it (URLSearchParams would write a space as "+", which it keeps).
  return `postgres://?${[...params].map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&')}`;
}

/** pgbench -i's progress lines on stderr: on a terminal each overwrites the last (ended by \r, a newline after the last), else one a line. */
function generationProgress(err: (text: string) => void): GenerationProgress {
  const terminal = process.stderr.isTTY === true;
  let told = false;
  return {
    line(text) {
      told = true;
      err(`${text}${terminal ? '\r' : '\n'}`);
    },
    end() {
      if (terminal && told) err('\n');
    },
  };
}

function initArgs(o: PgbenchInit, env: Env): string[] {
  return [
    'tpcb',
    '--pgbench',
    '--db',
    targetUrl(o.connection, env),
    '-s',
    String(o.scale),
    '-I',
    o.steps || ' ',
    '-F',
    String(o.fillfactor),
    '--partitions',
    String(o.partitions),
    '--partition-method',
    o.partitionMethod,
    ...(o.unlogged ? ['--unlogged-tables'] : []),
    ...(o.tablespace !== undefined ? ['--tablespace', o.tablespace] : []),
    ...(o.indexTablespace !== undefined ? ['--index-tablespace', o.indexTablespace] : []),
    '--force',
  ];
}

function runArgs(o: PgbenchRun, env: Env): string[] {
  const optional = (flag: string, value: number | string | undefined): string[] => (value === undefined ? [] : [flag, String(value)]);
  const seed = o.seed ?? seedFromEnvironment(env);
  return [
    'tpcb',
    '--db',
    targetUrl(o.connection, env),
    '-c',
    String(o.clients),
    '-j',
    String(o.jobs),
    ...(o.transactions !== undefined ? ['-t', String(o.transactions)] : ['-T', String(o.seconds)]),
    '--protocol',
    o.protocol,
    '--progress',
    String(o.progress ?? 0),
    '--live=false',
    '--observe=false',
    '--max-tries',
    String(o.maxTries),
    '--abort-on-error',
    ...o.builtins.flatMap((b) => ['-b', b]),
    ...o.files.flatMap((f) => ['-f', f]),
    // Only where a -f came before a -b: headroom's own order (built-ins first) is the rest's.
    ...(/f.*b/.test(o.scriptOrder) ? ['--script-order', o.scriptOrder] : []),
    ...o.defines.flatMap((d) => ['-D', d]),
    // The built-ins read the scale from pgbench_branches; -s then only sets :scale for scripts alone.
    ...(o.builtins.length === 0 ? optional('-s', o.scale) : []),
    ...optional('--rate', o.rate),
    ...optional('--latency-limit', o.latencyLimit),
    ...(o.log ? ['--log'] : []),
    ...optional('--log-prefix', o.logPrefix),
    ...optional('--aggregate-interval', o.aggregateInterval),
    ...optional('--sampling-rate', o.samplingRate),
    ...optional('--seed', seed),
    ...(o.failuresDetailed ? ['--failures-detailed'] : []),
    ...(o.perCommand ? ['-r'] : []),
    ...(o.connect ? ['--connect'] : []),
    ...(o.debug ? ['--debug'] : []),
    ...(o.verboseErrors ? ['--verbose-errors'] : []),
  ];
}

/** PGBENCH_RANDOM_SEED, which pgbench reads when --random-seed is not given. */
function seedFromEnvironment(env: Env): number | undefined {
  const text = env['PGBENCH_RANDOM_SEED'];
  if (text === undefined || text === 'time' || text === 'rand') return undefined;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new PgbenchUsageError(`unrecognized random seed option "${text}"`);
  return Number(text);
}

function runStyle(o: PgbenchRun, env: Env): import('../run.js').RunStyle {
  const err = (text: string): void => void process.stderr.write(text);
  const seed = o.seed ?? seedFromEnvironment(env);
  return {
    // pgbench exits 0 with failed transactions: the failure rule (--max-failed) is headroom run's.
    failureRule: false,
    verb: 'pgbench',
    checksBudget: false,
    readsData: o.builtins.length > 0,
    missingData(session) {
      const database = serverTargetOf(session.target)?.database ?? session.url;
      throw new UserError(
        `could not count number of branches: relation "pgbench_branches" does not exist in ${session.url}`,
        `Perhaps you need to do initialization ("headroom pgbench -i") in database "${database}"`,
      );
    },
    async beforeRun(session, scale) {
      if (o.scale !== undefined && o.builtins.length > 0) {
        err(`headroom pgbench: warning: scale option ignored, using count from pgbench_branches table (${scale})\n`);
      }
      if (seed !== undefined) err(`headroom pgbench: setting random seed to ${seed}\n`);
      const server = serverTargetOf(session.target);
      if (o.debug && server) {
        const { host, port, database } = server;
        const bound = o.transactions !== undefined ? `nxacts: ${o.transactions}` : `duration: ${o.seconds}`;
        err(`headroom pgbench: pghost: ${host} pgport: ${port} nclients: ${o.clients} ${bound} dbName: ${database}\n`);
      }
      if (o.vacuum !== 'none') await pgbenchVacuum(session.conn, session.target.dbms, o.vacuum === 'all', err);
    },
    progress(point) {
      let line = pgbenchProgressLine(point, { maxTries: o.maxTries, latencyLimited: o.latencyLimit !== undefined });
      line = line.slice(0, line.indexOf(' | '));
      // --progress-timestamp: the time of the report as a Unix timestamp, to the millisecond, in place of the time since the start.
      if (o.progressTimestamp) line = line.replace(/^progress: \S+ s/, `progress: ${(Date.now() / 1000).toFixed(3)} s`);
      err(`${line}\n`);
    },
    resultFile: () => o.headroomOut,
    // --headroom-out FILE is named after headroom's summary, as headroom run names it; pgbench's own lines never name it.
    tellsResultFile: o.headroomSummary,
    errorLine: (line) => err(`headroom pgbench: error: ${line}\n`),
    async finish(result) {
      process.stdout.write(`${pgbenchOutput(result, o).join('\n')}\n`);
      if (o.headroomSummary) {
        // headroom's reports are loaded only when asked for: pgbench's lines need none of them.
        const { summaryText } = await import('../../reports/text.js');
        process.stdout.write(`\nheadroom's summary (--headroom-summary):\n${summaryText(result, undefined)}\n`);
      }
      return exitCode(result);
    },
  };
}

/** What pgbench prints on stdout after a run: its version line, its block with -r's latencies. */
export function pgbenchOutput(result: RunResult, o: PgbenchRun): string[] {
  for (const terminal of result.terminals) {
    // An SQL error comes as pgbench words it ("script 0 aborted in command 1 query 0: ERROR:  ..."); a script error as its message.
    const aborted = terminal.aborted;
    if (aborted === undefined) continue;
    const why = /^(script \d+ )?aborted/.test(aborted) ? aborted : `aborted: ${aborted}`;
    process.stderr.write(`headroom pgbench: error: client ${terminal.terminal} ${why}\n`);
  }
  // pgbench prints the stddev only where it measured every latency: under -P, -R or -L.
  const stddev = o.progress !== undefined || o.rate !== undefined || o.latencyLimit !== undefined;
  const server = result.target.version.split(/ on | \(|,/)[0];
  const block = pgbenchBlock(result, true)
    .filter((line) => stddev || !line.startsWith('latency stddev'))
    .map((line) => (stddev || !line.startsWith('latency average = ') ? line : latencyFromRunTime(result)))
    .flatMap((line) => (line.startsWith('rate limit schedule lag: ') ? [line, ...lagPercentilesLine(result)] : [line]));
  const lines = [`pgbench (headroom ${TOOL_VERSION}, server ${server})`, ...block];
  // No transaction processed or skipped: pgbench stops after the failure and retry counts, its
  // latencies, times, rates and per-script sections being meaningless.
  if (result.summary.transactions + (result.summary.pgbench?.skipped ?? 0) <= 0) {
    const rest = lines.findIndex((line) => /^(number of transactions (skipped|above)|latency average)/.test(line));
    return rest < 0 ? lines : lines.slice(0, rest);
  }
  return lines;
}

/**
 * Under -R, headroom's one line more than pgbench's block: pgbench gives the schedule lag's average
 * and maximum only, and a tail is what tells whether the client kept the schedule. Its own prefix,
 * so that a script reading pgbench's "rate limit schedule lag:" line still finds one.
 */
function lagPercentilesLine(result: RunResult): string[] {
  const lag = result.summary.scheduleLagMs;
  if (lag?.p50 === undefined || lag.p99 === undefined) return [];
  // Which clock woke the clients: Node's timers add up to about a millisecond to every lag.
  const timer = lag.timer ? `; schedule kept by ${scheduleTimerText(lag.timer)}` : '';
  return [`schedule lag percentiles (headroom): p50 ${lag.p50.toFixed(3)} p99 ${lag.p99.toFixed(3)} max ${lag.max.toFixed(3)} ms${timer}`];
}

/**
 * pgbench's "latency average" where it did not time each transaction (no -P, -R or -L): the run's
 * time times the clients over the transactions, failed ones included, which it then says.
 */
function latencyFromRunTime(result: RunResult): string {
  const { summary, config } = result;
  const clients = config.clients - (summary.connections?.refused ?? 0);
  const ended = summary.transactions + summary.failed;
  // The time tps was taken over (committed / tps, as pgbench divides one by the other), not
  // measuredSeconds, which is kept to the millisecond: a 20 ms run would be 2.5% off.
  const seconds = summary.tps > 0 ? summary.transactions / summary.tps : summary.measuredSeconds;
  const ms = ended > 0 ? (seconds * 1000 * clients) / ended : 0;
  return `latency average = ${ms.toFixed(3)} ms${summary.failed > 0 ? ' (including failures)' : ''}`;
}

function exitCode(result: RunResult): number {
  // A client the run ended without is one pgbench would still be waiting for: told as an aborted one.
  for (const s of result.stuck ?? []) {
    process.stderr.write(
      `headroom pgbench: error: client ${s.terminal} did not end its transaction within ${STOP_GRACE_MS / 1000} s of the run's end (${stuckPlace(s)})\n`,
    );
  }
  if (result.terminals.some((t) => t.aborted !== undefined) || (result.stuck ?? []).length > 0) {
    process.stderr.write('headroom pgbench: error: Run was aborted; the above results are incomplete.\n');
    return 2;
  }
  return result.status === 'interrupted' ? 130 : 0;
}
