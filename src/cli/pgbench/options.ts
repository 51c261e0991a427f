import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { BUILTIN_SCRIPTS } from '../../workloads/pgbench-script/builtin-scripts.js';
import { getoptLong, type LongOption, type ParsedOption } from './getopt.js';
import { MAX_RATE, MAX_TIMER_MS, MAX_TIMER_SECONDS, MIN_LATENCY_LIMIT_MS, MIN_RATE } from '../../config/limits.js';
import { openFilesLimit } from '../../common/proc.js';
import { MAX_TPCB_SCALE } from '../../workloads/tpcb/schema.js';
import { VARIABLE_NAME } from '../../workloads/pgbench-script/variable-name.js';

/**
 * pgbench 15's command line: its option table (short letters as pgbench's optstring, long names
 * as its long_options), read with getopt_long, then checked as pgbench checks it, with its words.
 * headroom's own additions are long options that begin with `headroom-`.
 */
const SHORT = 'iI:h:nvp:dqb:SNc:j:Crs:t:T:U:lf:D:F:M:P:R:L:';

const LONG: LongOption[] = [
  ...(
    [
      ['builtin', 'b'],
      ['client', 'c'],
      ['connect', 'C'],
      ['debug', 'd'],
      ['define', 'D'],
      ['file', 'f'],
      ['fillfactor', 'F'],
      ['host', 'h'],
      ['initialize', 'i'],
      ['init-steps', 'I'],
      ['jobs', 'j'],
      ['log', 'l'],
      ['latency-limit', 'L'],
      ['no-vacuum', 'n'],
      ['port', 'p'],
      ['progress', 'P'],
      ['protocol', 'M'],
      ['quiet', 'q'],
      ['report-per-command', 'r'],
      ['rate', 'R'],
      ['scale', 's'],
      ['select-only', 'S'],
      ['skip-some-updates', 'N'],
      ['time', 'T'],
      ['transactions', 't'],
      ['username', 'U'],
      ['vacuum-all', 'v'],
    ] as const
  ).map(([name, key]) => ({ name, key, hasArg: SHORT.includes(`${key}:`) })),
  ...(
    [
      ['unlogged-tables', false],
      ['tablespace', true],
      ['index-tablespace', true],
      ['sampling-rate', true],
      ['aggregate-interval', true],
      ['progress-timestamp', false],
      ['log-prefix', true],
      ['foreign-keys', false],
      ['random-seed', true],
      ['show-script', true],
      ['partitions', true],
      ['partition-method', true],
      ['failures-detailed', false],
      ['max-tries', true],
      ['verbose-errors', false],
      ['headroom-summary', false],
      ['headroom-out', true],
    ] as const
  ).map(([name, hasArg]) => ({ name, key: name, hasArg })),
];

/** Only -i's options: given in benchmarking mode, pgbench refuses them. */
const INIT_ONLY = new Set(['I', 'F', 'q', 'unlogged-tables', 'tablespace', 'index-tablespace', 'foreign-keys', 'partitions', 'partition-method']);
/** Only the run's options: given with -i, pgbench refuses them. */
const RUN_ONLY = new Set([
  'b',
  'c',
  'C',
  'D',
  'f',
  'j',
  'l',
  'L',
  'M',
  'N',
  'P',
  'r',
  'R',
  'S',
  't',
  'T',
  'v',
  'sampling-rate',
  'aggregate-interval',
  'progress-timestamp',
  'log-prefix',
  'random-seed',
  'failures-detailed',
  'max-tries',
  'verbose-errors',
  'show-script',
  'headroom-summary',
  'headroom-out',
]);

/** pgbench's own refusal of a command line: it prints `pgbench: error: ...` and exits with 1. */
export class PgbenchUsageError extends Error {
  constructor(
    message: string,
    /** Further lines pgbench prints after the error (detail, hint). */
    readonly more: string[] = [],
  ) {
    super(message);
  }
}

/** -b list and --show-script NAME: pgbench prints the text on stderr and exits with 0. */
export class BuiltinListing extends Error {}

export const BUILTINS = [
  { name: 'tpcb-like', title: '<builtin: TPC-B (sort of)>' },
  { name: 'simple-update', title: '<builtin: simple update>' },
  { name: 'select-only', title: '<builtin: select only>' },
] as const;

export interface PgbenchConnection {
  host: string | undefined;
  port: string | undefined;
  user: string | undefined;
  dbname: string | undefined;
}

export interface PgbenchInit {
  mode: 'init';
  connection: PgbenchConnection;
  scale: number;
  steps: string;
  fillfactor: number;
  partitions: number;
  partitionMethod: 'range' | 'hash';
  unlogged: boolean;
  tablespace: string | undefined;
  indexTablespace: string | undefined;
  /** -q: a progress line about every 5 s instead of every 100,000 rows. */
  quiet: boolean;
}

export interface PgbenchRun {
  mode: 'run';
  connection: PgbenchConnection;
  clients: number;
  jobs: number;
  transactions: number | undefined;
  seconds: number | undefined;
  /** -s: the :scale of custom scripts (the built-ins read pgbench_branches). */
  scale: number | undefined;
  protocol: 'simple' | 'extended' | 'prepared';
  /** -b names (full, with @weight when given) and -f files, in the order given. */
  builtins: string[];
  files: string[];
  /** b or f for each script in command-line order: pgbench numbers its scripts in that order. */
  scriptOrder: string;
  defines: string[];
  vacuum: 'none' | 'some' | 'all';
  progress: number | undefined;
  rate: number | undefined;
  latencyLimit: number | undefined;
  log: boolean;
  logPrefix: string | undefined;
  aggregateInterval: number | undefined;
  samplingRate: number | undefined;
  seed: number | undefined;
  maxTries: number;
  failuresDetailed: boolean;
  /** --progress-timestamp: -P's lines carry the Unix time of the report. */
  progressTimestamp: boolean;
  /** --verbose-errors: every error told, retried or not. */
  verboseErrors: boolean;
  /** -d: pgbench's debug lines. */
  debug: boolean;
  /** -C: a new connection per transaction. */
  connect: boolean;
  perCommand: boolean;
  headroomSummary: boolean;
  headroomOut: string | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

export function parsePgbenchArgs(argv: readonly string[], env: Env): PgbenchInit | PgbenchRun {
  const { options, operands } = getoptLong(argv, SHORT, LONG);
  return readOptions(options, operands, env);
}

function readOptions(options: readonly ParsedOption[], operands: readonly string[], env: Env): PgbenchInit | PgbenchRun {
  if (operands.length > 1) {
    throw new PgbenchUsageError(`too many command-line arguments (first is "${operands[1]}")`, ['hint: Try "headroom pgbench --help" for more information.']);
  }
  const init = options.some((o) => o.key === 'i');
  const keys = new Set(options.map((o) => o.key));
  const connection: PgbenchConnection = { host: undefined, port: undefined, user: undefined, dbname: operands[0] ?? env['PGDATABASE'] };
  const last = new Map<string, string | undefined>();
  const run: PgbenchRun = {
    mode: 'run',
    connection,
    clients: 1,
    jobs: 1,
    transactions: undefined,
    seconds: undefined,
    scale: undefined,
    protocol: 'simple',
    builtins: [],
    files: [],
    scriptOrder: '',
    defines: [],
    vacuum: 'some',
    progress: undefined,
    rate: undefined,
    latencyLimit: undefined,
    log: false,
    logPrefix: undefined,
    aggregateInterval: undefined,
    samplingRate: undefined,
    seed: undefined,
    maxTries: 1,
    failuresDetailed: false,
    connect: false,
    debug: false,
    progressTimestamp: false,
    verboseErrors: false,
    perCommand: false,
    headroomSummary: false,
    headroomOut: undefined,
  };
  let steps = 'dtgvp';
  let foreignKeys = false;
  let noVacuum = false;
  let fillfactor = 100;
  let partitions = 0;
  let partitionMethod: 'range' | 'hash' | undefined;
  let unlogged = false;
  let tablespace: string | undefined;
  let indexTablespace: string | undefined;
  let scale: number | undefined;
  let maxTriesGiven = false;
  for (const { key, value } of options) {
    const text = value ?? '';
    last.set(key, value);
    switch (key) {
      case 'h':
        connection.host = text;
        break;
      case 'p':
        connection.port = text;
        break;
      case 'U':
        connection.user = text;
        break;
      case 'n':
        noVacuum = true;
        break;
      case 'v':
        run.vacuum = 'all';
        break;
      case 'S':
        run.builtins.push('select-only');
        run.scriptOrder += 'b';
        break;
      case 'N':
        run.builtins.push('simple-update');
        run.scriptOrder += 'b';
        break;
      case 'b':
        run.builtins.push(builtinWithWeight(text));
        run.scriptOrder += 'b';
        break;
      case 'f':
        run.files.push(fileWithWeight(text));
        run.scriptOrder += 'f';
        break;
      case 'D':
        // pgbench wants a name and a value: "=1" and "a=" are refused as "a" is.
        if (!/^[^=]+=[\s\S]/.test(text)) throw new PgbenchUsageError(`invalid variable definition: "${text}"`);
        if (!VARIABLE_NAME.test(text.slice(0, text.indexOf('=')))) {
          throw new PgbenchUsageError(`option: invalid variable name: "${text.slice(0, text.indexOf('='))}"`);
        }
        run.defines.push(text);
        break;
      case 'c':
        run.clients = intOption(text, '-c/--client', 1);
        checkOpenFiles(run.clients);
        break;
      case 'j':
        run.jobs = intOption(text, '-j/--jobs', 1);
        break;
      case 't':
        run.transactions = intOption(text, '-t/--transactions', 1);
        break;
      case 'T':
        run.seconds = timerSeconds(intOption(text, '-T/--time', 1), '-T/--time', 1);
        break;
      case 's':
        scale = intOption(text, '-s/--scale', 1);
        // -i loads the scale: its teller ids must fit their int column (a run's -s only sets :scale).
        if (init && scale > MAX_TPCB_SCALE) {
          throw new PgbenchUsageError(`-s/--scale must be in range 1..${MAX_TPCB_SCALE}`, [
            `hint: pgbench_tellers.tid is an int, of 10 tellers a branch: above scale ${MAX_TPCB_SCALE} they would not fit it.`,
          ]);
        }
        break;
      case 'P':
        run.progress = timerSeconds(intOption(text, '-P/--progress', 1), '-P/--progress', 1);
        break;
      case 'M':
        if (text !== 'simple' && text !== 'extended' && text !== 'prepared') throw new PgbenchUsageError(`invalid query mode (-M): "${text}"`);
        run.protocol = text;
        break;
      case 'R':
        run.rate = positiveDouble(text, `invalid rate limit: "${text}"`, MIN_RATE, MAX_RATE, 'transactions per second');
        break;
      case 'L':
        run.latencyLimit = positiveDouble(text, `invalid latency limit: "${text}"`, MIN_LATENCY_LIMIT_MS, MAX_TIMER_MS, 'ms');
        break;
      case 'l':
        run.log = true;
        break;
      case 'r':
        run.perCommand = true;
        break;
      case 'C':
        run.connect = true;
        break;
      case 'd':
        run.debug = true;
        break;
      case 'progress-timestamp':
        run.progressTimestamp = true;
        break;
      case 'verbose-errors':
        run.verboseErrors = true;
        break;
      case 'log-prefix':
        run.logPrefix = text;
        break;
      case 'aggregate-interval':
        run.aggregateInterval = timerSeconds(intOption(text, '--aggregate-interval', 1), '--aggregate-interval', 1);
        break;
      case 'sampling-rate': {
        const rate = Number(text);
        if (text.trim() === '' || !(rate > 0 && rate <= 1)) throw new PgbenchUsageError(`invalid sampling rate: "${text}"`);
        run.samplingRate = rate;
        break;
      }
      case 'show-script': {
        const [name] = builtinWithWeight(text).split('@');
        const builtin = BUILTINS.find((b) => b.name === name)!;
        // pgbench ends the listing with an empty line.
        throw new BuiltinListing(`-- ${builtin.name}: ${builtin.title}\n${BUILTIN_SCRIPTS[builtin.name]}\n`);
      }
      case 'random-seed':
        run.seed = randomSeed(text);
        break;
      case 'max-tries': {
        maxTriesGiven = true;
        if (!/^\s*\d+\s*$/.test(text) || Number(text) > 2147483647) throw new PgbenchUsageError(`invalid number of maximum tries: "${text}"`);
        run.maxTries = Number(text);
        break;
      }
      case 'failures-detailed':
        run.failuresDetailed = true;
        break;
      case 'headroom-summary':
        run.headroomSummary = true;
        break;
      case 'headroom-out':
        run.headroomOut = text;
        break;
      case 'I':
        steps = checkSteps(text);
        break;
      case 'F':
        fillfactor = intOption(text, '-F/--fillfactor', 10, 100);
        break;
      case 'foreign-keys':
        foreignKeys = true;
        break;
      case 'unlogged-tables':
        unlogged = true;
        break;
      case 'tablespace':
        tablespace = text;
        break;
      case 'index-tablespace':
        indexTablespace = text;
        break;
      case 'partitions':
        partitions = intOption(text, '--partitions', 0);
        break;
      case 'partition-method':
        if (text !== 'range' && text !== 'hash') throw new PgbenchUsageError(`invalid partition method, expecting "range" or "hash", got: "${text}"`);
        partitionMethod = text;
        break;
      default:
        break; // -i, -q: -q only thins pgbench's own progress lines, which headroom does not print
    }
  }
  // After the values, as pgbench checks each value while it reads the options.
  if (init && [...keys].some((k) => RUN_ONLY.has(k))) throw new PgbenchUsageError('some of the specified options cannot be used in initialization (-i) mode');
  if (!init && [...keys].some((k) => INIT_ONLY.has(k))) throw new PgbenchUsageError('some of the specified options cannot be used in benchmarking mode');
  if (!init && keys.has('progress-timestamp') && run.progress === undefined) {
    throw new PgbenchUsageError('--progress-timestamp is allowed only under --progress');
  }
  if (init) {
    if (partitionMethod !== undefined && partitions === 0) throw new PgbenchUsageError('--partition-method requires greater than zero --partitions');
    if (foreignKeys && !steps.includes('f')) steps += 'f';
    if (noVacuum) steps = steps.replace(/v/g, '');
    return {
      mode: 'init',
      connection,
      scale: scale ?? 1,
      steps,
      fillfactor,
      partitions,
      partitionMethod: partitionMethod ?? 'range',
      unlogged,
      tablespace,
      indexTablespace,
      quiet: keys.has('q'),
    };
  }
  if (noVacuum) run.vacuum = 'none';
  run.scale = scale;
  if (run.transactions !== undefined && run.seconds !== undefined) {
    throw new PgbenchUsageError('specify either a number of transactions (-t) or a duration (-T), not both');
  }
  if (run.transactions === undefined && run.seconds === undefined) run.transactions = 10;
  if (run.builtins.length + run.files.length > 128) throw new PgbenchUsageError('at most 128 SQL scripts are allowed');
  if (run.builtins.length === 0 && run.files.length === 0) run.builtins.push('tpcb-like');
  if ([...run.builtins, ...run.files].every((s) => weightOf(s) === 0)) throw new PgbenchUsageError('total script weight must not be zero');
  // pgbench runs no more threads than clients.
  run.jobs = Math.min(run.jobs, run.clients);
  if (run.maxTries === 0 && run.latencyLimit === undefined && run.seconds === undefined) {
    throw new PgbenchUsageError('an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)');
  }
  if (!maxTriesGiven) run.maxTries = 1;
  if (!run.log) {
    if (run.samplingRate !== undefined) throw new PgbenchUsageError('log sampling (--sampling-rate) is allowed only when logging transactions (-l)');
    if (run.aggregateInterval !== undefined) throw new PgbenchUsageError('log aggregation is allowed only when actually logging transactions');
    if (run.logPrefix !== undefined) throw new PgbenchUsageError('log file prefix (--log-prefix) is allowed only when logging transactions (-l)');
  }
  if (run.aggregateInterval !== undefined && run.samplingRate !== undefined) {
    throw new PgbenchUsageError('log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time');
  }
  if (run.aggregateInterval !== undefined && run.seconds !== undefined && run.aggregateInterval > run.seconds) {
    throw new PgbenchUsageError(`number of seconds for aggregation (${run.aggregateInterval}) must not be higher than test duration (${run.seconds})`);
  }
  if (run.aggregateInterval !== undefined && run.seconds !== undefined && run.seconds % run.aggregateInterval !== 0) {
    throw new PgbenchUsageError(`duration (${run.seconds}) must be a multiple of aggregation interval (${run.aggregateInterval})`);
  }
  return run;
}

/** option_parse_int's checks and words. */
function intOption(text: string, name: string, min: number, max = 2147483647): number {
  if (!/^\s*[+-]?\d+\s*$/.test(text)) throw new PgbenchUsageError(`invalid value "${text}" for option ${name}`);
  const value = Number(text);
  if (value < min || value > max) throw new PgbenchUsageError(`${name} must be in range ${min}..${max}`);
  return value;
}

/**
 * A double pgbench takes when above 0 (atof: "1e30", even "nan"). headroom takes [least, most]:
 * its schedule and timers count from a microsecond to 24.8 days, so a value outside is refused in
 * pgbench's words for a bad one, with a hint saying the range.
 */
function positiveDouble(text: string, message: string, least: number, most: number, unit: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0) throw new PgbenchUsageError(message);
  if (value < least || value > most) throw new PgbenchUsageError(message, [`hint: headroom takes ${least} to ${most} ${unit}.`]);
  return value;
}

/** Seconds pgbench would take up to 2^31 - 1; headroom's timers hold a thousandth of that. */
function timerSeconds(value: number, name: string, min: number): number {
  if (value > MAX_TIMER_SECONDS) {
    throw new PgbenchUsageError(`${name} must be in range ${min}..${MAX_TIMER_SECONDS}`, [
      `hint: headroom's timers hold at most ${MAX_TIMER_SECONDS} s (24.8 days).`,
    ]);
  }
  return value;
}

/** pgbench's check of -c against the open files its process may have (stdin, stdout, stderr and a connection a client). */
function checkOpenFiles(clients: number): void {
  const limit = openFilesLimit();
  if (limit !== undefined && limit < clients + 3) {
    throw new PgbenchUsageError(`need at least ${clients + 3} open files, but system limit is ${limit}`, [
      'hint: Reduce number of clients, or use limit/ulimit to increase the system limit.',
    ]);
  }
}

/** --random-seed: an unsigned integer, `time` or `rand`. headroom's seeds are below 2^53. */
function randomSeed(text: string): number {
  if (text === 'time') return Date.now() * 1000;
  // As pgbench's strong random source: the seed is chosen once, every draw of the run follows from it.
  if (text === 'rand') return Number(randomBytes(8).readBigUInt64LE() >> 12n);
  if (!/^\d+$/.test(text)) {
    throw new PgbenchUsageError(`unrecognized random seed option "${text}"`, [
      'detail: Expecting an unsigned integer, "time" or "rand".',
      'error: error while setting random seed from --random-seed option',
    ]);
  }
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new PgbenchUsageError(`--random-seed ${text} is above 2^53, which headroom's seeds do not reach`);
  return value;
}

function checkSteps(text: string): string {
  for (const step of text) {
    if (step === ' ') continue;
    if (!'dtgGvpf'.includes(step)) {
      throw new PgbenchUsageError(`unrecognized initialization step "${step}"`, ['detail: Allowed step characters are: "dtgGvpf".']);
    }
  }
  return text.replace(/ /g, '');
}

/** NAME[@W] with NAME any unambiguous prefix of a built-in, as pgbench's findBuiltin takes it. */
function builtinWithWeight(text: string): string {
  const at = text.lastIndexOf('@');
  const name = at < 0 ? text : text.slice(0, at);
  const weight = at < 0 ? '' : `@${checkWeight(text.slice(at + 1))}`;
  const found = BUILTINS.filter((b) => b.name.startsWith(name));
  if (name === 'list') throw new BuiltinListing(`Available builtin scripts:\n${BUILTINS.map((b) => `${b.name.padStart(15)}: ${b.title}`).join('\n')}\n\n`);
  if (found.length === 1) return `${found[0]!.name}${weight}`;
  throw new PgbenchUsageError(
    found.length > 1 ? `ambiguous builtin name: ${found.length} builtin scripts found for prefix "${name}"` : `no builtin script found for name "${name}"`,
  );
}

function fileWithWeight(text: string): string {
  const at = text.lastIndexOf('@');
  if (at >= 0) checkWeight(text.slice(at + 1));
  const file = at < 0 ? text : text.slice(0, at);
  try {
    accessSync(file, constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'No such file or directory' : code === 'EACCES' ? 'Permission denied' : String(code);
    throw new PgbenchUsageError(`could not open file "${file}": ${reason}`);
  }
  return text;
}

function checkWeight(text: string): number {
  if (!/^\s*[+-]?\d+$/.test(text)) throw new PgbenchUsageError(`invalid weight specification: @${text}`);
  const weight = Number(text);
  if (weight < 0 || weight > 2147483647) throw new PgbenchUsageError(`weight specification out of range (0 .. 2147483647): ${weight}`);
  return weight;
}

function weightOf(script: string): number {
  const match = /@(\d+)$/.exec(script);
  return match ? Number(match[1]) : 1;
}
