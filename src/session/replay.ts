import { randomBytes } from 'node:crypto';
import type { OptionValuesOf } from '../config/options.js';
import { describeTarget, resolveTarget, serverTargetOf } from '../config/target.js';
import { loadDriver } from '../drivers/registry.js';
import { UserError } from '../errors.js';
import { KEEPS_UP_MARGIN, type ReplayCounts, type ReplayRecord, type ReplaySweep, type ReplaySweepStep } from '../result/replay-record.js';
import type { RunResult } from '../result/result.js';
import { evaluateThresholds, type Threshold } from '../thresholds/threshold.js';
import type { CaptureFile } from '../workloads/replay/capture-file.js';
import type { ReplayPlan } from '../workloads/replay/replay-plan.js';
import { replay, type ReplayPace } from '../workloads/replay/index.js';
import { REPLAY_COUNTERS } from '../workloads/replay/run-statement.js';
import { NO_PGBENCH_SETTINGS } from './measure.js';
import type { DB_OPTION, SERVER_SETTINGS_OPTIONS } from './options.js';
import { runMeasured } from './run.js';
import { parseSettings } from './server-settings.js';
import { logLine } from './session.js';

/** --until: the speeds a sweep tries, 1, 1.5, 2, 3, 4, 6, 8, 12, ... up to this. */
export const MAX_SWEEP_SPEED = 4096;

/**
 * --until when the recorded speed itself fails: these slower speeds, in turn, until one holds, so
 * that the factor is a figure below 1 (the share of the recorded load the server carries within
 * the conditions) rather than only "below 1". Each takes the recorded time divided by its speed,
 * so the sweep stops at half: a server that cannot carry half the recorded load is "below 0.5".
 */
export const SLOWER_SPEEDS = [0.75, 0.5];

export function sweepSpeeds(): number[] {
  const speeds: number[] = [];
  for (let base = 1; base <= MAX_SWEEP_SPEED; base *= 2) speeds.push(base, base * 1.5);
  return speeds.filter((s) => s <= MAX_SWEEP_SPEED);
}

/** One --until condition: the replay kept its schedule, or a threshold on the result (p99<50ms, failed<0.1%). */
export type UntilCondition = { text: string; keepsUp: true } | { text: string; threshold: Threshold };

export interface ReplayRequest {
  /** The capture file as given, read and planned. */
  capturePath: string;
  capture: CaptureFile;
  plan: ReplayPlan;
  values: OptionValuesOf<[typeof DB_OPTION, ...typeof SERVER_SETTINGS_OPTIONS]>;
  /** --speed, for a single replay. */
  speed: number;
  pace: ReplayPace;
  until: UntilCondition[];
  /** --fresh-from: each replay runs on a copy of this database, made before and dropped after it. */
  freshFrom: string | undefined;
  argv: readonly string[];
  progressEvery: number;
  observe: boolean;
  live: boolean;
}

/**
 * How long a replay may take before it is stopped and what is still running is counted
 * unfinished: three times its target, and at least 30 s more, so that a server that stopped
 * answering still ends the replay with its result.
 */
export function replayTimeLimitSeconds(targetSeconds: number): number {
  return Math.ceil(Math.max(targetSeconds * 3, targetSeconds + 30));
}

/** One replay at one speed: the run result with its replay record. `earlierSteps`: replays that wrote to the same data before this one. */
export async function replayOnce(request: ReplayRequest, speed: number, earlierSteps: number): Promise<RunResult> {
  const { plan, capture } = request;
  const targetSeconds = capture.durationS / speed;
  let db = request.values.db;
  let copy: { drop(): Promise<void> } | undefined;
  if (request.freshFrom !== undefined) ({ db, copy } = await freshCopy(request.values.db, request.freshFrom));
  let result: RunResult;
  try {
    const outcome = await runMeasured(
      {
        verb: 'replay',
        workload: replay,
        workloadOptions: { capture: request.capturePath, speed, pace: request.pace },
        values: { ...request.values, db },
        given: new Set(['capture', 'speed', 'pace']),
        steps: [Math.max(1, plan.sessions.length)],
        askedScale: undefined,
        settings: parseSettings(request.values.set),
        thresholds: [],
        out: undefined,
        seed: 0,
        agents: undefined,
        measure: {
          argv: request.argv,
          jobs: 1,
          durationSeconds: replayTimeLimitSeconds(targetSeconds),
          transactionsPerClient: undefined,
          force: false,
          // The replay's average rate: recorded statements over the target time.
          rate: targetSeconds > 0 ? plan.statements / targetSeconds : plan.statements,
          warmupSeconds: 0,
          maxTries: 1,
          // Errors are the replay's finding, told per statement; --until 'failed<...' judges them.
          maxFailedPercent: 100,
          protocol: 'prepared',
          perCommand: false,
          journalFile: undefined,
          observe: request.observe,
          progressEvery: request.progressEvery,
          live: request.live,
          announce: true,
          pgbench: NO_PGBENCH_SETTINGS,
          routing: undefined,
        },
      },
      { resultFile: () => undefined, checksBudget: true },
    );
    if (outcome.kind !== 'run') throw new Error('a replay is one run');
    result = outcome.result;
  } finally {
    await copy?.drop();
  }
  result.replay = replayRecord(request, result, speed, request.freshFrom === undefined && earlierSteps > 0);
  return result;
}

/** The replay's own figures from the run's per-type ones: statements per kind against the capture, expected errors, row checks, time against target. */
export function replayRecord(request: ReplayRequest, result: RunResult, speed: number, shared: boolean): ReplayRecord {
  const { plan, capture } = request;
  const zero = (): ReplayCounts => ({ captured: 0, executed: 0, failed: 0, unfinished: 0 });
  const statements = zero();
  const byKind: Record<string, ReplayCounts> = {};
  for (const [kind, n] of Object.entries(plan.byKind)) byKind[kind] = { ...zero(), captured: n };
  statements.captured = plan.statements;
  const recordedErrors = { captured: 0, again: 0, gone: 0 };
  const rows = { checked: 0, differ: 0 };
  const byName = new Map(result.transactions.map((t) => [t.name, t]));
  for (const shape of plan.shapes) {
    recordedErrors.captured += shape.recordedErrors;
    const t = byName.get(shape.name);
    if (!t) continue;
    const kind = (byKind[shape.kind] ??= zero());
    for (const counts of [kind, statements]) {
      counts.executed += t.count + t.failed;
      counts.failed += t.failed;
      counts.unfinished += t.unfinished ?? 0;
    }
    recordedErrors.again += t.counters?.[REPLAY_COUNTERS.recordedErrorAgain] ?? 0;
    recordedErrors.gone += t.counters?.[REPLAY_COUNTERS.recordedErrorGone] ?? 0;
    rows.checked += t.counters?.[REPLAY_COUNTERS.rowsChecked] ?? 0;
    rows.differ += t.counters?.[REPLAY_COUNTERS.rowsDiffer] ?? 0;
  }
  const targetSeconds = capture.durationS / speed;
  const replaySeconds = result.summary.measuredSeconds;
  return {
    capture: request.capturePath,
    source: { dbms: capture.source.dbms, kind: capture.source.kind, capturedAt: capture.source.capturedAt },
    speed,
    pace: request.pace,
    sessions: plan.sessions.length,
    recordedSeconds: capture.durationS,
    targetSeconds,
    replaySeconds,
    keepsUp: statements.executed === statements.captured && replaySeconds <= targetSeconds * (1 + KEEPS_UP_MARGIN),
    statements,
    byKind,
    recordedErrors,
    rows,
    shapes: plan.shapes.map((s) => ({ name: s.name, kind: s.kind, shape: s.shape })),
    data: { freshFrom: request.freshFrom ?? null, sharedWithEarlierSteps: shared },
  };
}

/**
 * --until: replays at 1, 1.5, 2, 3, ... until a speed fails a condition; the headroom factor is the
 * last speed that held. When speed 1 already fails, the slower speeds (SLOWER_SPEEDS) are tried
 * until one holds: the factor is then below 1, and the step above it is the one that failed.
 */
export async function replaySweep(
  request: ReplayRequest,
  onStep: (step: ReplaySweepStep, result: RunResult) => void,
  onSlower: (speeds: readonly number[]) => void = () => {},
): Promise<{ sweep: ReplaySweep; held: RunResult | undefined; last: RunResult }> {
  const steps: ReplaySweepStep[] = [];
  // Set inside tryStep: declared with their whole types, not narrowed to their first values.
  let held = undefined as RunResult | undefined;
  let last = undefined as RunResult | undefined;
  let ended = 'limit' as ReplaySweep['ended'];
  /** Replays `speed`: its step, or undefined when the sweep must stop (interrupted). */
  const tryStep = async (speed: number): Promise<ReplaySweepStep | undefined> => {
    const result = await replayOnce(request, speed, steps.length);
    last = result;
    const step = sweepStep(request.until, result);
    steps.push(step);
    onStep(step, result);
    if (result.status === 'interrupted') {
      ended = 'interrupted';
      return undefined;
    }
    if (step.holds) held = result;
    else ended = 'failed';
    return step;
  };
  for (const speed of sweepSpeeds()) {
    const step = await tryStep(speed);
    if (!step?.holds) break;
  }
  if (held === undefined && ended === 'failed') {
    onSlower(SLOWER_SPEEDS);
    for (const speed of SLOWER_SPEEDS) {
      const step = await tryStep(speed);
      if (!step || step.holds) break;
    }
  }
  const sweep: ReplaySweep = { until: request.until.map((u) => u.text), factor: held?.replay?.speed ?? null, steps, ended };
  return { sweep, held, last: last! };
}

function sweepStep(until: readonly UntilCondition[], result: RunResult): ReplaySweepStep {
  const record = result.replay!;
  const thresholds = until.flatMap((u) => ('threshold' in u ? [u.threshold] : []));
  const outcomes = evaluateThresholds(thresholds, result);
  result.thresholds = outcomes;
  const failing = outcomes.filter((o) => !o.ok).map((o) => `${o.threshold} (${Number.isFinite(o.actual) ? `${o.actual} ${o.unit}`.trim() : 'not measured'})`);
  if (until.some((u) => 'keepsUp' in u) && !record.keepsUp)
    failing.push(
      `keeps-up (${record.replaySeconds.toFixed(2)} s for ${record.targetSeconds.toFixed(2)} s${record.statements.executed < record.statements.captured ? `, ${record.statements.executed} of ${record.statements.captured} statements` : ''})`,
    );
  const tries = result.summary.transactions + result.summary.failed;
  return {
    speed: record.speed,
    status: result.status,
    statements: record.statements.captured,
    executed: record.statements.executed,
    replaySeconds: record.replaySeconds,
    targetSeconds: record.targetSeconds,
    p50Ms: result.summary.latencyMs.p50,
    p99Ms: result.summary.latencyMs.p99,
    lagP99Ms: result.summary.scheduleLagMs?.p99 ?? null,
    failed: result.summary.failed,
    failedPercent: tries > 0 ? (100 * result.summary.failed) / tries : 0,
    holds: failing.length === 0 && result.status !== 'interrupted',
    failing,
  };
}

/**
 * Refuses to replay onto the server and database the capture was recorded from, unless told it is
 * meant: the server's own identity where the capture has one, else the host, port and database as
 * given. Returns what was compared, for a line of output.
 */
export async function refuseProduction(request: ReplayRequest, allowed: boolean): Promise<string> {
  const target = resolveTarget(request.values.db);
  const server = serverTargetOf(target);
  const source = request.capture.source;
  const databases = new Set(request.capture.sessions.flatMap((s) => (s.database === undefined ? [] : [s.database])));
  if (!server) return 'the target is an embedded database: not the captured server';
  const driver = await loadDriver(target);
  let identity: { ids: string[]; database: string } | undefined;
  try {
    const conn = await driver.connect();
    try {
      identity = await driver.serverIdentity?.(conn);
    } finally {
      await conn.close();
    }
  } finally {
    await driver.close();
  }
  const database = identity?.database ?? server.database;
  // A capture that names no database leaves only the server to compare.
  const sameDatabase = databases.size === 0 ? undefined : databases.has(database);
  const dbWords = databases.size === 0 ? 'the capture names no database' : `database ${[...databases].join('/')} against ${database}`;
  let same: boolean;
  let compared: string;
  const systemId = source.server?.systemId;
  if (systemId !== undefined && identity && identity.ids.length > 0) {
    same = identity.ids.includes(systemId) && sameDatabase !== false;
    compared = `server identity ${systemId} against ${identity.ids.join(' / ')} and ${dbWords}`;
  } else {
    const local = (h: string | undefined): string | undefined =>
      h === 'localhost' || h === '::1' || h === '[::1]' || h?.startsWith('127.') ? 'this machine' : h;
    const host = source.server?.host;
    const port = source.server?.port;
    // Without a host the log files were read here, so the captured server is taken to be on this machine.
    const sameHost = local(host ?? 'localhost') === local(server.host);
    const samePort = port === undefined || port === server.port;
    same = sameHost && samePort && (sameDatabase ?? (host !== undefined && port !== undefined));
    compared = `host ${host ?? '(not in the capture: this machine, where its logs were read)'}, port ${port ?? '(not in the capture)'} and ${dbWords}, as given (the capture has no server identity)`;
  }
  if (same && !allowed)
    throw new UserError(
      `refusing to replay onto ${describeTarget(target)}: it is the server and database the capture was recorded from (compared ${compared}); a replay writes to it`,
      'replay onto a copy (--db URL of the copy), or add --i-know-this-is-production',
    );
  return `${same ? 'replaying onto the captured server itself (--i-know-this-is-production)' : 'not the captured server'}: compared ${compared}`;
}

/** --fresh-from: a copy of the template database on the --db server, and how to drop it. */
async function freshCopy(dbUrl: string | undefined, template: string): Promise<{ db: string; copy: { drop(): Promise<void> } }> {
  const given = dbUrl ?? process.env['DATABASE_URL'];
  const target = resolveTarget(given);
  const driver = await loadDriver(target);
  if (!driver.copyDatabase || !driver.dropDatabase) {
    await driver.close();
    throw new UserError(
      `--fresh-from: ${target.dbms} has no database copy headroom can make`,
      'restore a copy before each replay yourself (see README: headroom replay) and leave out --fresh-from',
    );
  }
  const name = `headroom_replay_${randomBytes(4).toString('hex')}`;
  let url: URL;
  try {
    url = new URL(given ?? '');
  } catch {
    await driver.close();
    throw new UserError('--fresh-from needs --db as a URL (postgres://USER@HOST:PORT/DB)', 'give --db postgres://...');
  }
  url.pathname = `/${name}`;
  const conn = await driver.connect();
  try {
    logLine(`copying database ${template} to ${name} for this replay`);
    await driver.copyDatabase(conn, template, name);
  } finally {
    await conn.close();
  }
  return {
    db: url.toString(),
    copy: {
      async drop() {
        const again = await driver.connect();
        try {
          await driver.dropDatabase!(again, name);
        } finally {
          await again.close();
          await driver.close();
        }
      },
    },
  };
}
