import { defineOptions } from '../config/options.js';
import { parseArgs } from '../config/args.js';
import { SECONDS_BOUND } from '../config/limits.js';
import { UserError } from '../errors.js';
import { THRESHOLD_EXIT_CODE, parseThreshold } from '../thresholds/threshold.js';
import { ResultOutput, STDOUT_PATH, defaultResultPath } from '../result/write.js';
import type { RunResult } from '../result/result.js';
import { summaryText } from '../reports/text.js';
import { replaySweepText, replayText } from '../reports/replay-text.js';
import { CLOSING_OPTIONS, DB_OPTION, SERVER_SETTINGS_OPTIONS } from '../session/options.js';
import { logLine } from '../session/session.js';
import { refuseProduction, replayOnce, replaySweep, type ReplayRequest, type UntilCondition } from '../session/replay.js';
import { readPlanned } from '../workloads/replay/index.js';
import { checkOpenFiles } from '../session/budget.js';

export const REPLAY_OPTIONS = defineOptions([
  DB_OPTION,
  {
    long: 'speed',
    type: 'number',
    min: 0.001,
    max: 1e6,
    value: 'X',
    help: 'replay at X times the recorded speed (each statement due at its recorded start / X)',
    default: 1,
  },
  {
    long: 'pace',
    type: 'string',
    value: 'PACE',
    choices: ['statements', 'transactions'],
    default: 'statements',
    help: "statements: every statement due at its recorded start (as pgreplay); transactions: each transaction's first statement due at its recorded start and the rest sent as the one before ends (plus the client's recorded time between them, where the log timed statements), so that the recording's own lock waits are not replayed as time",
  },
  {
    long: 'until',
    type: 'string',
    value: 'CONDITIONS',
    help: "replay at 1, 1.5, 2, 3, 4, 6, 8, 12, ... times the recorded speed until a step fails one of these (comma-separated): 'p99<50ms', 'failed<0.1%' (any --threshold), 'keeps-up' (done within 5% of the recorded time / speed); prints the headroom factor (when 1 already fails: 0.75, then 0.5)",
  },
  {
    long: 'fresh-from',
    type: 'string',
    value: 'TEMPLATE_DB',
    help: 'PostgreSQL: replay each step into a new copy of this database (CREATE DATABASE ... TEMPLATE), dropped after it; --db names the server (and a database to connect to that is not the template)',
  },
  {
    long: 'i-know-this-is-production',
    type: 'boolean',
    help: 'replay even onto the server and database the capture was recorded from (a replay writes to it)',
  },
  ...SERVER_SETTINGS_OPTIONS,
  { long: 'progress', short: 'P', type: 'integer', min: 0, ...SECONDS_BOUND, value: 'SECONDS', help: 'print progress every SECONDS (0: never)', default: 1 },
  { long: 'observe', type: 'boolean', help: 'sample the server beside the replay (--observe=false: do not)', default: true },
  { long: 'live', type: 'boolean', help: 'on a terminal, redraw a live view in place of the progress lines', default: true },
  {
    long: 'out',
    short: 'o',
    type: 'string',
    value: 'FILE',
    help: 'result file (default headroom-results/replay-DBMS-TIME.json; with --until the step that held)',
  },
  ...CLOSING_OPTIONS,
]);

/** --until's text: conditions separated by commas. */
export function parseUntil(text: string): UntilCondition[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw new UserError(`--until '${text}' names no condition`, "e.g. --until 'p99<50ms,keeps-up'");
  return parts.map((part) => {
    if (part === 'keeps-up') return { text: part, keepsUp: true };
    try {
      return { text: part, threshold: parseThreshold(part) };
    } catch (error) {
      // parseThreshold speaks of --threshold; here the condition came from --until.
      const hint = error instanceof UserError ? error.hint : undefined;
      throw new UserError(`--until '${part}' is not a condition`, `keeps-up, or ${hint ?? "a threshold such as 'p99<50ms'"}`);
    }
  });
}

/** `headroom replay CAPTURE --db URL`: a captured load played back at its recorded times, once or at rising speeds (--until). */
export async function replayCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs(argv, REPLAY_OPTIONS, 'replay');
  if (positionals.length !== 1)
    throw new UserError(
      positionals.length === 0 ? 'headroom replay needs a capture file' : `headroom replay takes one capture file, got: ${positionals.join(' ')}`,
      'use: headroom replay CAPTURE.json --db URL [--speed X | --until CONDITIONS]',
    );
  const capturePath = positionals[0]!;
  const until = values.until === undefined ? [] : parseUntil(values.until);
  if (until.length > 0 && argv.some((a) => a === '--speed' || a.startsWith('--speed=')))
    throw new UserError('give --speed or --until, not both', '--until tries the speeds 1, 1.5, 2, 3, ... itself');
  const { capture, plan } = readPlanned(capturePath);
  if (plan.statements === 0) throw new UserError(`capture ${capturePath} holds no statements`, 'capture a period in which the server ran statements');
  checkOpenFiles(plan.sessions.length);
  const request: ReplayRequest = {
    capturePath,
    capture,
    plan,
    values: { db: values.db, set: values.set, 'i-accept-data-loss': values['i-accept-data-loss'] },
    speed: values.speed,
    pace: values.pace,
    until,
    freshFrom: values['fresh-from'],
    argv,
    progressEvery: values.progress,
    observe: values.observe !== false,
    live: values.live === true,
  };
  logLine(await refuseProduction(request, values['i-know-this-is-production'] === true));
  if (until.length === 0) {
    const result = await replayOnce(request, values.speed, 0);
    return finish(result, values.out, undefined);
  }
  if (request.freshFrom === undefined)
    logLine(
      'the speeds replay one after another on the same database: each sees the writes of those before it (--fresh-from TEMPLATE_DB starts each from the same data)',
    );
  const { sweep, held, last } = await replaySweep(
    request,
    (step) =>
      logLine(
        `speed ${step.speed}x: ${step.replaySeconds.toFixed(2)} s for ${step.targetSeconds.toFixed(2)} s, p99 ${step.p99Ms.toFixed(2)} ms, ${step.failed} failed: ${step.holds ? 'holds' : `fails (${step.failing.join('; ') || step.status})`}`,
      ),
    (speeds) =>
      logLine(
        `the recorded speed fails: trying ${speeds.map((s) => `${s}x`).join(', ')} until one holds (the recorded ${capture.durationS.toFixed(1)} s take ${speeds.map((s) => (capture.durationS / s).toFixed(1)).join(', ')} s)`,
      ),
  );
  const result = held ?? last;
  result.replay!.sweep = sweep;
  return finish(result, values.out, replaySweepText(sweep));
}

async function finish(result: RunResult, out: string | undefined, sweepText: string | undefined): Promise<number> {
  const file = out ?? defaultResultPath(result);
  const human = file === STDOUT_PATH ? process.stderr : process.stdout;
  // pgbench's block would list every statement shape as a script: the replay's own table does that.
  const summary = summaryText({ ...result, summary: { ...result.summary, pgbench: undefined } } as RunResult, undefined);
  human.write(`${summary}\n\n${replayText(result)}\n`);
  if (sweepText !== undefined) human.write(`\n${sweepText}\n`);
  let code = result.status === 'interrupted' ? 130 : result.status === 'failed' ? 1 : 0;
  if (code === 0 && sweepText === undefined && result.thresholds?.some((t) => !t.ok)) code = THRESHOLD_EXIT_CODE;
  const output = new ResultOutput(file);
  await output.save(result, true);
  const unwritten = output.unwrittenLine('result');
  if (unwritten !== undefined) {
    process.stderr.write(`headroom: ${unwritten}\n`);
    return code === 0 ? 1 : code;
  }
  if (output.file !== STDOUT_PATH) human.write(`result: ${output.file}\n`);
  return code;
}
