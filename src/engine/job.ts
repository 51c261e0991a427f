import type { Target } from '../config/target.js';
import type { OptionValues } from '../config/options.js';
import type { Connection } from '../drivers/driver.js';
import type { DbError } from '../drivers/errors.js';
import { createDriver } from '../drivers/registry.js';
import { Recorder, type IntervalSnapshot, type JobTotals } from '../metrics/recorder.js';
import { findWorkload } from '../workloads/registry.js';
import { Gate } from './gate.js';
import { StopSignal } from './stop-signal.js';
import { Terminal, type TerminalPlan } from './terminal.js';

/** Everything a job needs to build its terminals; plain data, so it can be sent to a worker thread. */
export interface JobConfig {
  target: Target;
  workload: string;
  options: OptionValues;
  scale: number;
  terminals: TerminalPlan[];
}

/** How long terminals may take to finish their transaction in flight once stopped. */
const STOP_GRACE_MS = 5_000;

/**
 * A share of the terminals and one recorder. With -j 1 the engine runs one LocalJob in the main
 * thread; with -j N each worker thread runs one (see worker.ts) and the engine merges them.
 */
export interface JobHandle {
  /** Starts the terminals' loops; resolves when every terminal has ended (count reached or stopped). */
  run(): Promise<void>;
  setMeasuring(measuring: boolean): Promise<void>;
  tick(): Promise<IntervalSnapshot>;
  /** Stops recording, then the terminals; returns the totals and any bad request that aborted terminals. */
  stop(): Promise<{ totals: JobTotals; aborted: DbError | undefined }>;
}

export class LocalJob implements JobHandle {
  private loops: Promise<void> | undefined;

  private constructor(
    private readonly recorder: Recorder,
    private readonly terminals: Terminal[],
    private readonly stopSignal: StopSignal,
  ) {}

  /** Opens and prepares every terminal's connection; fails (closing what it opened) if one cannot. */
  static async open(config: JobConfig): Promise<LocalJob> {
    const workload = findWorkload(config.workload);
    const types = workload.transactions(config.options);
    const driver = createDriver(config.target);
    const recorder = new Recorder(types.map((t) => t.name));
    const stopSignal = new StopSignal();
    const opened = await Promise.allSettled(config.terminals.map(() => driver.connect()));
    const failure = opened.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failure) {
      await Promise.all(opened.map((o) => (o.status === 'fulfilled' ? o.value.close().catch(() => {}) : undefined)));
      throw failure.reason;
    }
    const context = { scale: config.scale, dbms: config.target.dbms, options: config.options };
    const connections = opened.map((o) => (o as PromiseFulfilledResult<Connection>).value);
    const gate = driver.blocking ? new Gate() : undefined;
    const terminals = config.terminals.map((plan, i) => new Terminal(plan, driver, types, recorder, stopSignal, connections[i]!, context, gate));
    try {
      for (const terminal of terminals) await terminal.prepare();
    } catch (error) {
      await Promise.all(terminals.map((t) => t.close()));
      throw error;
    }
    return new LocalJob(recorder, terminals, stopSignal);
  }

  run(): Promise<void> {
    this.loops ??= Promise.all(this.terminals.map((t) => t.run())).then(() => undefined);
    return this.loops;
  }

  async setMeasuring(measuring: boolean): Promise<void> {
    this.recorder.measuring = measuring;
  }

  async tick(): Promise<IntervalSnapshot> {
    return this.recorder.takeInterval();
  }

  async stop(): Promise<{ totals: JobTotals; aborted: DbError | undefined }> {
    // Transactions that end after the stop must not count: the measured window closes now.
    this.recorder.measuring = false;
    const totals = this.recorder.totalsSnapshot();
    this.stopSignal.stop();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.loops ?? Promise.resolve(), new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)))]);
    clearTimeout(timer);
    await Promise.all(this.terminals.map((t) => t.close()));
    return { totals, aborted: this.terminals.find((t) => t.abortedBy)?.abortedBy };
  }
}
