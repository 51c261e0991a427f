import type { Target } from '../config/target.js';
import type { OptionValues } from '../config/options.js';
import type { Connection } from '../drivers/driver.js';
import { DbError } from '../drivers/errors.js';
import { loadDriver } from '../drivers/registry.js';
import { Recorder, type IntervalSnapshot, type JobTotals } from '../metrics/recorder.js';
import { threadRunQueueWaitNs } from '../common/proc.js';
import { loadWorkload } from '../workloads/registry.js';
import { isModulePath } from '../module/module-path.js';
import type { Protocol } from '../workloads/workload.js';
import { Arrivals } from './arrivals.js';
import { Gate } from './gate.js';
import type { JournalWriter } from './journal.js';
import { STOP_GRACE_MS, StopSignal } from './stop-signal.js';
import { Terminal, type TerminalPlan } from './terminal.js';
import { Watchdog } from './watchdog.js';
import type { TransactionLog, TransactionLogConfig } from './transaction-log.js';
import type { RoutedConnector, Routing } from './routing/routed-connector.js';
import { declaringTypes } from './routing/declaring-types.js';
import { NodeWakeTimer, type WakeTimer } from '../common/wake-timer.js';
import { transportKind } from '../drivers/transport/connect.js';
import { reactorWaits, reactorWakeTimer, type ReactorWaits } from '../drivers/transport/native-transport.js';

/** Everything a job needs to build its terminals; plain data, so it can be sent to a worker thread. */
export interface JobConfig {
  target: Target;
  workload: string;
  options: OptionValues;
  scale: number;
  terminals: TerminalPlan[];
  /** --journal: the durability journal file, and the run's id that prefixes every journaled commit. */
  journal: { file: string; runId: string } | undefined;
  /** --force: run with the connections the server accepts instead of failing on a capacity refusal. */
  acceptRefusals: boolean;
  protocol: Protocol;
  seed: number;
  /** -r: record per-command figures of scripts. */
  perCommand: boolean;
  /** --set: statements (SET, PRAGMA) run on every connection a terminal opens, replacements included. */
  sessionStatements?: string[];
  /** Which job this is, from 0: names its -l file. */
  index?: number;
  /** --latency-limit in milliseconds. */
  latencyLimitMs?: number | undefined;
  /** -l / --log: this job writes its own file. */
  transactionLog?: TransactionLogConfig | undefined;
  /** --route and --balance when the target has replicas (or --route was given); see engine/routing. */
  routing: Routing | undefined;
  /** What the workload's runStart read before the run; absent where it has none. */
  runStart?: Record<string, number>;
}

// Here beside the stop itself, so that headroom pgbench can name it without loading the engine; also exported from here.
export { STOP_GRACE_MS };

/**
 * Opening the terminals is given up when no connection opens and no prepare() ends for this long
 * while one is stuck: a server that stopped answering, a module's prepare() that never settles.
 * Longer than a connection's own default timeout (10 s), so that its error is the one told.
 */
const OPENING_SILENCE_MS = 15_000;

/**
 * What wakes a rated job's terminals at their schedule: the native reactor's timer (microseconds)
 * where the connections ride the reactor (this thread's own: each worker thread of -j has one),
 * else Node's timers: HEADROOM_TRANSPORT=node, a reactor not built, or one without the timer.
 */
function pacingTimer(): WakeTimer {
  let native = false;
  try {
    native = transportKind() === 'native';
  } catch {
    // A HEADROOM_TRANSPORT that names no transport is told where a connection is opened.
  }
  return (native ? reactorWakeTimer() : null) ?? new NodeWakeTimer();
}

/** The trials between two readings of one reactor's waits (all of them when it was not made yet at the first). */
function waitsSince(now: ReactorWaits, before: ReactorWaits | undefined): ReactorWaits {
  if (!before || before.mode !== now.mode || before.trials > now.trials) return now;
  return { mode: now.mode, trials: now.trials - before.trials, pollingWon: now.pollingWon - before.pollingWon };
}

/** Why opening the terminals was given up: the ones still connecting, the first still preparing and where. */
function stuckOpening(connecting: ReadonlySet<number>, preparing: readonly Terminal[], seconds: number): string | undefined {
  const parts: string[] = [];
  if (connecting.size > 0) parts.push(`terminal(s) ${[...connecting].slice(0, 10).join(', ')}${connecting.size > 10 ? ', ...' : ''} still connecting`);
  if (preparing[0]) parts.push(preparing[0].preparingPlace());
  if (parts.length === 0) return undefined;
  return `the terminals did not get ready: nothing moved for ${seconds} s; ${parts.join('; ')}`;
}

/**
 * A share of the terminals and one recorder. With -j 1 the engine runs one LocalJob in the main
 * thread; with -j N each worker thread runs one (see worker.ts) and the engine merges them.
 */
export interface JobHandle {
  /** Starts the terminals' loops; resolves when every terminal has ended (count reached or stopped). */
  run(): Promise<void>;
  setMeasuring(measuring: boolean): Promise<void>;
  tick(): Promise<IntervalSnapshot>;
  /**
   * Stops recording, then the terminals, giving those in a transaction STOP_GRACE_MS to end it (the
   * rest are counted unfinished); returns the totals, any bad request that aborted terminals, and a
   * failure while stopping (the -l file's last write) that must fail the run.
   */
  stop(): Promise<JobStopped>;
  /** A second Ctrl-C: the stop's grace ends now. */
  hurry(): void;
}

export interface JobStopped {
  totals: JobTotals;
  aborted: DbError | undefined;
  failure?: Error | undefined;
}

export class LocalJob implements JobHandle {
  private loops: Promise<void> | undefined;
  private hurried: (() => void) | undefined;
  /** The thread's reactor's waits when the terminals started: a thread that ran other runs before (a sweep's steps) counts on from there. */
  private waitsAtRun: ReactorWaits | undefined;
  /** This thread's run-queue delay (ns) when measuring began: the measured period's wait for a CPU counts from there. */
  private runQueueAtMeasure: number | undefined;

  private constructor(
    private readonly recorder: Recorder,
    private readonly terminals: Terminal[],
    private readonly stopSignal: StopSignal,
    private readonly journal: JournalWriter | undefined,
    private readonly log: TransactionLog | undefined,
    private readonly router: RoutedConnector | undefined,
    private readonly rated: boolean,
  ) {}

  /**
   * Opens and prepares every terminal's connection; fails (closing what it opened) if one cannot,
   * except that under --force terminals the server refused for capacity are left out.
   */
  static async open(config: JobConfig, signal?: AbortSignal): Promise<LocalJob> {
    // A workload module is loaded in each worker thread from its path (the main thread has it already);
    // the module layer (and esbuild) only then.
    const workload = isModulePath(config.workload)
      ? await (await import('../module/load-module.js')).loadWorkloadModule(config.workload, { names: [], options: [] })
      : await loadWorkload(config.workload);
    const types = declaringTypes(workload.transactions(config.options), config.routing);
    const stagger = workload.terminalStaggerMs?.(config.options) ?? 0;
    const driver = await loadDriver(config.target);
    const origin = workload.errorOrigin?.bind(workload);
    const rated = config.terminals.some((plan) => plan.rate !== undefined);
    const recorder = new Recorder(
      types.map((t) => t.name),
      config.latencyLimitMs === undefined ? Infinity : config.latencyLimitMs * 1000,
      origin,
      rated,
    );
    // Replicas, --journal and -l load their code here, for the runs that use them, before any connection.
    const router = config.routing && (await (await import('./routing/routed-connector.js')).RoutedConnector.open(config.target, config.routing));
    const stopSignal = new StopSignal(rated ? pacingTimer() : new NodeWakeTimer());
    const journal = config.journal && (await (await import('./journal.js')).JournalWriter.open(config.journal.file));
    const Journaling = journal && (await import('./journaling-connection.js')).JournalingConnection;
    // Opened before any connection, so a log that cannot be written fails the job with nothing left open.
    let log: TransactionLog | undefined;
    try {
      log = config.transactionLog && new (await import('./transaction-log.js')).TransactionLog(config.transactionLog, config.index ?? 0, config.seed);
    } catch (error) {
      await journal?.close();
      throw error;
    }
    // Each terminal's connector wraps every connection it opens, the first and any replacement.
    const statements = config.sessionStatements ?? [];
    // --set: every connection a terminal opens, the first and any replacement, gets the session settings.
    const withSettings = (open: () => Promise<Connection>) => async (): Promise<Connection> => {
      const conn = await open();
      try {
        for (const sql of statements) await conn.query(sql);
      } catch (error) {
        await conn.close().catch(() => {});
        throw error;
      }
      return conn;
    };
    const connectors = config.terminals.map((plan): (() => Promise<Connection>) => {
      const connect = withSettings(router ? () => router.connect(plan.id) : () => driver.connect());
      if (!journal || !Journaling) return connect;
      let sequence = 0;
      const nextId = (): string => `${config.journal!.runId}.${plan.id}.${++sequence}`;
      return async () => new Journaling(await connect(), journal, nextId);
    });
    // Until every terminal is ready: which ones are still connecting, and the terminals themselves
    // (each says what it is preparing), for the watchdog's message.
    const connecting = new Set(config.terminals.map((plan) => plan.id));
    let preparing: Terminal[] = [];
    const watchdog = new Watchdog(
      OPENING_SILENCE_MS,
      () => stuckOpening(connecting, preparing, OPENING_SILENCE_MS / 1000),
      signal,
      'interrupted while the terminals were connecting',
    );
    const connectStarted = performance.now();
    const connections = connectors.map((connect, i) =>
      connect().finally(() => {
        connecting.delete(config.terminals[i]!.id);
        watchdog.moved();
      }),
    );
    const closeAll = async (): Promise<void> => {
      // Connections that open after a give-up are closed as they come.
      for (const c of connections)
        void c.then(
          (conn) => conn.close().catch(() => {}),
          () => undefined,
        );
      await journal?.close().catch(() => undefined);
      log?.close();
      await router?.close();
    };
    let opened: PromiseSettledResult<Connection>[];
    try {
      opened = await watchdog.guard(Promise.allSettled(connections));
    } catch (error) {
      await closeAll();
      throw error;
    }
    recorder.connectMs = performance.now() - connectStarted;
    const refused = (o: PromiseSettledResult<Connection>): boolean =>
      o.status === 'rejected' && o.reason instanceof DbError && o.reason.errorClass === 'capacity';
    const failure = opened.find((o): o is PromiseRejectedResult => o.status === 'rejected' && !(config.acceptRefusals && refused(o)));
    const accepted = opened.flatMap((o, i) => (o.status === 'fulfilled' ? [{ connection: o.value, plan: config.terminals[i]!, connect: connectors[i]! }] : []));
    if (failure || accepted.length === 0) {
      await closeAll();
      throw failure?.reason ?? (opened[0] as PromiseRejectedResult).reason;
    }
    const context = {
      scale: config.scale,
      dbms: config.target.dbms,
      pipelines: driver.pipelines,
      options: config.options,
      protocol: config.protocol,
      seed: config.seed,
      ...(config.perCommand ? { commandTimings: recorder.commandTimings } : {}),
      ...(config.runStart ? { runStart: config.runStart } : {}),
    };
    const gate = driver.blocking ? new Gate() : undefined;
    // --rate: one arrival stream for the job at the rate its terminals were given, those the server
    // refused (--force) included: the load offered is the one asked for, whatever carries it.
    const jobRate = config.terminals.reduce((sum, plan) => sum + (plan.rate ?? 0), 0);
    // Seeded from its first terminal's seed, which holds the terminal's id: each job and each agent
    // of a distributed run draws its own stream, the same again with the same --seed.
    const arrivals = rated ? new Arrivals(jobRate, config.terminals[0]!.seed) : undefined;
    const terminals = accepted.map(
      ({ connection, plan, connect }) =>
        new Terminal({
          plan: { ...plan, latencyLimitMs: config.latencyLimitMs, startDelayMs: plan.id * stagger },
          types,
          recorder,
          stop: stopSignal,
          connection,
          connect,
          blocking: driver.blocking,
          gate,
          context,
          log,
          schedule: workload.schedule?.(config.options, plan.id),
          arrivals,
        }),
    );
    recorder.refusedConnections = opened.length - accepted.length;
    preparing = [...terminals];
    try {
      await watchdog.guard(
        (async () => {
          for (const terminal of terminals) {
            await terminal.prepare();
            preparing.shift();
            watchdog.moved();
          }
        })(),
      );
    } catch (error) {
      await Promise.all(terminals.map((t) => t.close()));
      await closeAll();
      throw error;
    }
    return new LocalJob(recorder, terminals, stopSignal, journal, log, router, rated);
  }

  run(): Promise<void> {
    this.waitsAtRun ??= reactorWaits();
    const loops = Promise.all(this.terminals.map((t) => t.run())).then(() => undefined);
    // A journal that cannot be written (a full disk) ends the job as a failed -l write does: the
    // durability check would have nothing to check the commits after it against.
    this.loops ??= this.journal ? Promise.race([loops, this.journal.failed]) : loops;
    return this.loops;
  }

  async setMeasuring(measuring: boolean): Promise<void> {
    this.recorder.measuring = measuring;
    if (measuring) this.log?.begin(performance.now());
    // Read on the job's own thread (a worker's under -j): the thread whose lateness a lag would show.
    if (measuring) this.runQueueAtMeasure = threadRunQueueWaitNs();
    if (this.router) this.router.stats.measuring = measuring;
  }

  async tick(): Promise<IntervalSnapshot> {
    const snapshot = this.recorder.takeInterval();
    // Once a second, never per transaction: the terminals still waiting on their transaction.
    const now = performance.now();
    let waiting = 0;
    let longest = 0;
    for (const terminal of this.terminals) {
      const waited = terminal.waitingMs(now);
      if (waited === undefined) continue;
      waiting++;
      longest = Math.max(longest, waited);
    }
    snapshot.waiting = waiting;
    snapshot.longestWaitMs = Math.round(longest);
    snapshot.sinceLastEndMs = Math.round(now - this.recorder.lastEndAt);
    return snapshot;
  }

  hurry(): void {
    this.hurried?.();
  }

  async stop(): Promise<JobStopped> {
    // Transactions that end after the stop must not count: the measured window closes now.
    const measured = this.recorder.measuring;
    this.recorder.measuring = false;
    if (this.router) this.router.stats.measuring = false;
    this.stopSignal.stop();
    const stoppedAt = performance.now();
    const runQueueAtStop = measured ? threadRunQueueWaitNs() : undefined;
    let timer: NodeJS.Timeout | undefined;
    // Loops that failed (run() reported it) still leave their totals.
    await Promise.race([
      this.loops?.catch(() => {}),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STOP_GRACE_MS);
        this.hurried = resolve;
      }),
    ]);
    clearTimeout(timer);
    // What is still running now is given up: its wait so far counts, as unfinished (a stalled server
    // shows in the latency figures instead of vanishing from them).
    const now = performance.now();
    const stuck = this.terminals.flatMap((t) => (measured ? (t.abandon(now, stoppedAt) ?? []) : []));
    // Taken after the terminals ended, so outages still open at the stop are included.
    const totals = this.recorder.totalsSnapshot();
    if (this.rated) totals.timer = this.stopSignal.timer.kind;
    if (stuck.length > 0) totals.stuck = stuck;
    if (this.router) totals.nodes = this.router.stats.totals();
    const waits = reactorWaits();
    if (waits) totals.waits = waitsSince(waits, this.waitsAtRun);
    if (runQueueAtStop !== undefined && this.runQueueAtMeasure !== undefined)
      totals.runQueue = { waitedMs: (runQueueAtStop - this.runQueueAtMeasure) / 1e6, threads: 1 };
    await Promise.all(this.terminals.map((t) => t.close()));
    let failure: Error | undefined;
    try {
      await this.journal?.close();
    } catch (error) {
      failure = error as Error;
    }
    // The journal's last lines are written at the close: a write that failed there fails the run too.
    failure ??= this.journal?.error;
    try {
      this.log?.close(stoppedAt);
    } catch (error) {
      failure ??= error as Error;
    }
    await this.router?.close();
    return { totals, aborted: this.terminals.find((t) => t.abortedBy)?.abortedBy, failure };
  }
}
