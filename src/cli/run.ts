import { parseClientSteps } from '../config/clients.js';
import { defineOptions } from '../config/options.js';
import { INT4_BOUND, MAX_RATE, MIN_RATE, SECONDS_BOUND } from '../config/limits.js';
import { UserError } from '../errors.js';
import { checkWeights } from '../engine/deck.js';
import { THRESHOLD_EXIT_CODE, checkThresholdTypes, isLagThreshold, parseThreshold } from '../thresholds/threshold.js';
import { ResultOutput, STDOUT_PATH } from '../result/write.js';
import { checkRunOutputs } from '../session/output-paths.js';
import { checkOpenFiles } from '../session/budget.js';
import type { SummaryLines } from '../reports/text.js';
import { PROTOCOLS, type Workload } from '../workloads/workload.js';
import { runMeasured, type RunHooks } from '../session/run.js';
import { PGBENCH_RUN_OPTIONS, pgbenchRunSettings } from './pgbench-run-options.js';
import { parseSettings } from '../session/server-settings.js';
import { CLOSING_OPTIONS, DB_OPTION, JOBS_OPTION, SCALE_OPTION, SERVER_SETTINGS_OPTIONS, askedScale } from '../session/options.js';
import { parseVerbArgs } from './common.js';
import { resolveTarget } from '../config/target.js';
import { ROUTING_OPTIONS, routingOf } from '../config/routing.js';
import type { RunResult } from '../result/result.js';
import type { SweepResult } from '../result/sweep.js';
import { DEFAULT_MAX_FAILED_PERCENT } from '../result/status.js';
// Distributed runs (--agents): src/agents/.
import { AGENT_RUN_OPTIONS, agentRunOf } from '../session/agent-options.js';

export const DEFAULT_DURATION_SECONDS = 10;

export const RUN_OPTIONS = defineOptions([
  { ...DB_OPTION, help: `${DB_OPTION.help} (add ?replicas=host:port,... for --route)` },
  {
    long: 'clients',
    short: 'c',
    type: 'string',
    value: 'N',
    help: 'terminals, each on its own connection; a list (10,20,40) or range (10:200:10, 1:256:x2) sweeps them, one run per step',
    default: '1',
  },
  JOBS_OPTION,
  {
    long: 'time',
    short: 'T',
    type: 'integer',
    min: 1,
    ...SECONDS_BOUND,
    value: 'SECONDS',
    help: `measured duration (default ${DEFAULT_DURATION_SECONDS} unless -t is given)`,
  },
  { long: 'transactions', short: 't', type: 'integer', min: 1, ...INT4_BOUND, value: 'N', help: 'transactions per client instead of a duration' },
  SCALE_OPTION,
  { long: 'progress', short: 'P', type: 'integer', min: 0, ...SECONDS_BOUND, value: 'SECONDS', help: 'print progress every SECONDS (0: never)', default: 1 },
  {
    long: 'rate',
    short: 'R',
    type: 'number',
    min: MIN_RATE,
    max: MAX_RATE,
    maxWhy: 'a transaction a nanosecond',
    value: 'TPS',
    help: 'open loop: schedule TPS transactions per second in all, latency counted from the scheduled start',
  },
  {
    long: 'warmup',
    type: 'integer',
    min: 0,
    ...SECONDS_BOUND,
    value: 'SECONDS',
    help: 'run this long before measuring; excluded from the results',
    default: 0,
  },
  {
    long: 'max-tries',
    type: 'integer',
    min: 0,
    ...INT4_BOUND,
    value: 'N',
    help: 'tries per transaction on serialization failures and deadlocks (1: no retry; 0: no limit but -T and --latency-limit, as pgbench)',
    default: 1,
  },
  {
    long: 'protocol',
    type: 'string',
    value: 'MODE',
    choices: PROTOCOLS,
    help: "how statements are sent: simple (values written into the text), extended (one-off parameterised statements), prepared (pgbench's default is simple)",
    default: 'prepared',
  },
  {
    long: 'report-per-command',
    short: 'r',
    type: 'boolean',
    help: 'per-command average latency and failures of each script, stored in the result and printed after the summary (pgbench -r)',
  },
  { long: 'seed', type: 'integer', min: 0, value: 'N', help: 'random seed (default: a new one each run, stored in the result)' },
  {
    long: 'observe',
    type: 'boolean',
    help: "sample the server beside the run: its CPU and I/O, waits, sizes, top statements (--observe=false: don't)",
    default: true,
  },
  { long: 'live', type: 'boolean', help: 'on a terminal, redraw a compact live view in place of the progress lines (--live=false: lines)', default: true },
  { long: 'out', short: 'o', type: 'string', value: 'FILE', help: 'result file (default headroom-results/WORKLOAD-DBMS-TIME.json)' },
  {
    long: 'journal',
    type: 'string',
    value: 'FILE',
    help: 'durability check: every commit also stores an id in headroom_journal and, once acknowledged, in FILE (fsynced); verify later with headroom check --journal FILE',
  },
  ...ROUTING_OPTIONS,
  {
    long: 'threshold',
    type: 'strings',
    value: 'COND',
    help: `pass/fail condition, repeatable: [TYPE:]METRIC OP VALUE, e.g. 'p99<50ms', 'tps>1000', 'failed<0.1%', 'book:p95<20ms', under -R 'lag-p99<1ms'; a run that fails one exits with ${THRESHOLD_EXIT_CODE}`,
  },
  {
    long: 'max-failed',
    type: 'string',
    value: 'PCT',
    help: `a transaction type whose failed share of its tries is above PCT%, or that never succeeds, fails the run (exit 1); 100% accepts any failures`,
    default: `${DEFAULT_MAX_FAILED_PERCENT}%`,
  },
  { long: 'force', type: 'boolean', help: 'run with the connections the server accepts when it refuses some, and report how many it refused' },
  {
    long: 'per-terminal',
    type: 'boolean',
    help: "one summary line per terminal: units finished, time, maxWait, avgWait (the chain study's lines; chain runs print them unasked)",
  },
  ...PGBENCH_RUN_OPTIONS,
  ...AGENT_RUN_OPTIONS,
  ...SERVER_SETTINGS_OPTIONS,
  ...CLOSING_OPTIONS,
]);

/**
 * How a run meets its user: `headroom run` loads missing data and prints its summary; `headroom
 * pgbench` refuses missing data, prepares as pgbench does and prints pgbench's lines.
 */
export interface RunStyle extends RunHooks {
  /** What the user reads after the run, and the exit code; printed before the result is written. */
  finish?(result: RunResult): number | Promise<number>;
  /** Where the result went is told (`result: FILE`) on stdout; default true. */
  tellsResultFile?: boolean;
  /** The one line on stderr saying the result could not be written where asked; default `headroom: LINE`. */
  errorLine?(line: string): void;
  /** False: failed work does not fail the run (headroom pgbench, as pgbench exits 0 with failed transactions). Default true. */
  failureRule?: boolean;
  /** The verb other commands are told (a setting it holds); default `run`. */
  verb?: string;
}

/** `headroom run`: load the data if it is not there, measure, write the result, print the summary. */
export async function runCommand(argv: readonly string[]): Promise<number> {
  return runWithStyle(argv, {});
}

export async function runWithStyle(argv: readonly string[], style: RunStyle): Promise<number> {
  refusePgbenchOnly(argv);
  const { workload, values, given, workloadOptions } = await parseVerbArgs(argv, 'run', RUN_OPTIONS);
  if (given.has('time') && given.has('transactions'))
    throw new UserError('give -T (duration) or -t (transactions per client), not both', 'see: headroom run --help');
  if (given.has('protocol') && workload.honoursProtocol !== true) {
    throw new UserError(`--protocol does not apply to ${workload.name}: its statements are sent as the workload defines them`, protocolHint(workload));
  }
  const transactionsPerClient = values.transactions;
  const durationSeconds = transactionsPerClient === undefined ? (values.time ?? DEFAULT_DURATION_SECONDS) : undefined;
  const steps = parseClientSteps(values.clients);
  const jobs = values.jobs;
  // In a sweep a step with fewer clients than -j runs one job per client.
  if (steps.length === 1 && jobs > steps[0]!)
    throw new UserError(`-j ${jobs} is more than -c ${steps[0]}`, 'each job needs at least one client: use -j up to -c');
  // With --agents the terminals open their connections on the agents' machines.
  if (values.agents === undefined) checkOpenFiles(Math.max(...steps));
  // A bad mix, or a type that cannot be sent the --protocol way, is refused before anything is loaded.
  const types = workload.transactions(workloadOptions);
  checkWeights(types.map((t) => t.weight));
  const thresholds = (values.threshold ?? []).map(parseThreshold);
  checkThresholdTypes(
    thresholds,
    types.map((t) => t.name),
  );
  if (thresholds.length > 0 && steps.length > 1) throw new UserError('--threshold applies to one run, not to a sweep of -c', 'give -c one number');
  const lagThreshold = thresholds.find(isLagThreshold);
  if (lagThreshold && values.rate === undefined)
    throw new UserError(
      `--threshold '${lagThreshold.text}': only a run paced with -R has a schedule lag`,
      'add -R TPS, or use a latency threshold such as p99<50ms',
    );
  for (const type of types) type.checkProtocol?.(values.protocol);
  const maxFailedPercent = style.failureRule === false ? null : parseMaxFailed(values['max-failed']);
  const pgbench = pgbenchRunSettings(values, given, jobs, values.rate, values['max-tries']);
  if (values['max-tries'] === 0 && pgbench.latencyLimitMs === undefined && durationSeconds === undefined) {
    throw new UserError(
      '--max-tries 0 (no limit on tries) needs a duration (-T) or --latency-limit to end the retries',
      'add -T SECONDS or --latency-limit MS, or give a number of tries',
    );
  }
  const asked = askedScale(workload, values);
  // Refused before anything is loaded, like a bad mix.
  const routing = routingOf(values, resolveTarget(values.db));
  // Before anything is loaded: a result that cannot be written would lose the whole measurement.
  checkRunOutputs(values, pgbench.transactionLog);

  const outcome = await runMeasured(
    {
      verb: style.verb ?? 'run',
      workload,
      workloadOptions,
      values,
      given,
      steps,
      askedScale: asked,
      settings: parseSettings(values.set),
      thresholds,
      out: values.out,
      seed: values.seed,
      // Before the database: a bus that is not there is refused before anything is loaded.
      agents: await agentRunOf(values, given),
      measure: {
        argv,
        jobs,
        durationSeconds,
        transactionsPerClient,
        force: values['force'] === true,
        rate: values.rate,
        warmupSeconds: values.warmup,
        maxTries: values['max-tries'],
        maxFailedPercent,
        protocol: values.protocol,
        perCommand: values['report-per-command'] === true,
        journalFile: values.journal,
        observe: values['observe'] !== false,
        progressEvery: values.progress,
        live: values['live'] === true,
        announce: true,
        pgbench,
        routing,
      },
    },
    style,
  );
  if (outcome.kind === 'sweep') {
    const { sweep, output } = outcome;
    // -o -: stdout carries the JSON alone.
    const human = output.asked === STDOUT_PATH ? process.stderr : process.stdout;
    human.write(`${(await import('../reports/sweep-table.js')).sweepText(sweep, undefined)}\n`);
    const code = sweep.status === 'interrupted' ? 130 : sweep.status === 'failed' ? 1 : 0;
    return saveAndTell(sweep, output, 'sweep', style, human, code);
  }
  const { result, file } = outcome;
  const human = file === STDOUT_PATH ? process.stderr : process.stdout;
  // The figures first: whatever happens to the file, they have been printed.
  const code = style.finish
    ? await style.finish(result)
    : await summaryAndCode(result, human, { study: workload.studySummary === true, perTerminal: values['per-terminal'] === true });
  return file === undefined ? code : saveAndTell(result, new ResultOutput(file), 'result', style, human, code);
}

/** headroom's summary (and -r's table) on `human`, and the run's exit code. */
async function summaryAndCode(result: RunResult, human: NodeJS.WritableStream, lines: SummaryLines): Promise<number> {
  // Loaded after the run: the reports are no part of the measured period, nor of headroom pgbench's start.
  const [{ summaryText }, { perCommandText }] = await Promise.all([import('../reports/text.js'), import('../reports/per-command.js')]);
  human.write(`${summaryText(result, undefined, lines)}\n`);
  if (result.perCommand) human.write(`${perCommandText(result.perCommand, result.config.maxTries)}\n`);
  if (result.status === 'completed' && result.replication?.check?.some((c) => !c.ok)) return 1;
  if (result.status === 'completed' && result.thresholds?.some((t) => !t.ok)) return THRESHOLD_EXIT_CODE;
  return result.status === 'interrupted' ? 130 : result.status === 'failed' ? 1 : 0;
}

/**
 * Writes the result after it was printed and says where it went: `result: FILE`, or one line on
 * stderr naming the file that could not be written, why, and where the result went instead; then
 * the exit code is not 0.
 */
async function saveAndTell(
  result: RunResult | SweepResult,
  output: ResultOutput,
  what: string,
  style: RunStyle,
  human: NodeJS.WritableStream,
  code: number,
): Promise<number> {
  await output.save(result, true);
  const unwritten = output.unwrittenLine(what);
  if (unwritten === undefined) {
    if (style.tellsResultFile !== false && output.file !== STDOUT_PATH) human.write(`result: ${output.file}\n`);
    return code;
  }
  if (style.errorLine) style.errorLine(unwritten);
  else process.stderr.write(`headroom: ${unwritten}\n`);
  return code === 0 ? 1 : code;
}

/** --max-failed 5% (or 5): a percentage from 0 to 100. */
export function parseMaxFailed(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*%?\s*$/.exec(text);
  const value = match ? Number(match[1]) : NaN;
  if (!(value >= 0 && value <= 100))
    throw new UserError(
      `--max-failed ${text} is not a percentage`,
      `give a share of the tries from 0% to 100%, e.g. --max-failed ${DEFAULT_MAX_FAILED_PERCENT}% (100% accepts any failures)`,
    );
  return value;
}

/** pgbench's options that `headroom run` does not take, with what to write instead. */
const PGBENCH_ONLY: Record<string, string> = {
  '-M': '--protocol MODE, or headroom pgbench -M MODE',
  '-S': '-b select-only, or headroom pgbench -S',
  '-N': '-b simple-update, or headroom pgbench -N',
  '-n': 'nothing (headroom run does not vacuum), or headroom pgbench -n',
  '-i': 'headroom init tpcb --pgbench, or headroom pgbench -i',
};

/** A pgbench user's habit meets a clear pointer instead of "unknown option". */
function refusePgbenchOnly(argv: readonly string[]): void {
  for (const arg of argv) {
    if (arg === '--') return;
    const letter = /^-([MSNni])/.exec(arg)?.[1];
    if (letter === undefined) continue;
    const hint = PGBENCH_ONLY[`-${letter}`]!;
    throw new UserError(`-${letter} is pgbench's option, not headroom run's`, `use ${hint}; headroom pgbench takes pgbench's whole command line`);
  }
}

/** Where a workload has its own choice of how statements are sent, the refusal names it. */
function protocolHint(workload: Workload): string {
  const own = workload.options.find((o) => o.long === 'statements');
  return own?.choices ? `omit --protocol; ${workload.name} has --statements ${own.choices.join('|')}` : 'omit --protocol (it applies to tpcb and -f scripts)';
}
