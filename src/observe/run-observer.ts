import type { DbmsObservation, SizeSnapshot, StatementStat } from '../drivers/observation.js';
import { growthBetween, sampleProcesses, type ProcessFilter, type ProcessGrowth, type ProcessSample } from './host-sampler.js';
import { machineGrowth, sampleMachine, type MachineSample } from './machine-sampler.js';
import { unlessCut } from '../common/unless-cut.js';

/** What the server did during the measured run, as stored in the result file's `server` field. */
export interface ServerObservation {
  /** tables: the workload's own only (absent in files written before: every table of the database). */
  sizesBefore: SizeSnapshot;
  /** Null when the server could not be asked at the end (e.g. its connection died in a crash). */
  sizesAfter: SizeSnapshot | null;
  statements: { top: StatementStat[] } | { unavailable: string };
  /** Once a second: what the other sessions were waiting on (counts by event); absent where not exposed. */
  waits: { t: number; counts: Record<string, number> }[] | null;
  /**
   * The server's processes on this machine, from /proc; null when it runs elsewhere or inside the
   * client. Their I/O is for every database of the server, not the disk's own count (see machine):
   * readBytes from storage; writeBytes, page-cache bytes dirtied (whole large folios, so it can be
   * many times what reaches the disk); writeCallBytes, bytes given to write calls (files and sockets).
   */
  host: {
    processes: number;
    cpuSeconds: number;
    /** Averaged over the measured period, as a percentage of one core. */
    cpuPercentOfOneCore: number;
    readBytes: number;
    writeBytes: number;
    /** Absent in files written before it was added. */
    writeCallBytes?: number;
    series: { t: number; cpuPercentOfOneCore: number; readBytes: number; writeBytes: number }[];
  } | null;
  /**
   * The machine the client runs on over the same period: all its CPUs' busy time and this client
   * process's (as percentages of one core), and what its physical disks read and wrote, whoever
   * asked. Absent off Linux and in files written before it was added.
   */
  machine?: { cpuPercentOfOneCore: number; clientCpuPercentOfOneCore: number; disks: string[]; diskReadBytes: number; diskWriteBytes: number };
  /**
   * How much the server's own counters of this database grew from the observer's start to its
   * stop (connections, any warm-up and the measured period; every attachment, headroom's own
   * included). Absent where the DBMS offers none (see DbmsObservation.activity) or they could not be read.
   */
  activity?: Record<string, number>;
  /** Time the sampling itself took on the client, in milliseconds, to show what it cost. */
  samplingMs: number;
}

const TOP_STATEMENTS = 10;

/**
 * Samples the server beside the run: sizes and statement counters at the start and the end, and
 * once a second its processes' CPU and I/O (when it runs on this machine) and the sessions' waits.
 * Everything goes over the run's own admin connection, never a terminal's.
 */
export class RunObserver {
  private readonly waits: { t: number; counts: Record<string, number> }[] = [];
  private readonly series: NonNullable<ServerObservation['host']>['series'] = [];
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> | undefined;
  private samplingMs = 0;
  private waitsAvailable = true;
  private last: ProcessSample | undefined;
  /**
   * Summed interval by interval, not end minus start: a terminal's backend lives for the run only,
   * so a start-to-end difference would miss everything it did.
   */
  private readonly grown = { cpuSeconds: 0, readBytes: 0, writeBytes: 0, writeCallBytes: 0, processes: 0 };
  private readonly started = performance.now();
  private readonly machineAtStart: MachineSample | undefined = sampleMachine();
  private readonly clientCpuAtStart = process.cpuUsage();

  private constructor(
    private readonly observation: DbmsObservation,
    private readonly sizesBefore: SizeSnapshot,
    private readonly statementsUnavailable: string | undefined,
    private readonly processFilter: ProcessFilter,
    private readonly first: ProcessSample | undefined,
    private readonly tables: readonly string[] | undefined,
    private readonly activityAtStart: Record<string, number> | undefined,
  ) {
    this.last = first;
  }

  /**
   * `local`: the server runs on this machine, so its processes can be read from /proc. `tables`:
   * the workload's, whose sizes and dead rows are reported (not other tables in the database).
   */
  static async start(observation: DbmsObservation, local: boolean, tables?: readonly string[]): Promise<RunObserver> {
    const sizes = await observation.sizes(tables);
    const unavailable = await observation.startStatements();
    const sampled = local && observation.serverProcessNames.length > 0;
    const filter: ProcessFilter = {
      names: observation.serverProcessNames,
      rootPid: sampled ? await observation.serverPid?.().catch(() => undefined) : undefined,
    };
    const processes = sampled ? sampleProcesses(filter) : undefined;
    const activity = await observation.activity?.().catch(() => undefined);
    const observer = new RunObserver(observation, sizes, unavailable, filter, processes, tables, activity);
    observer.timer = setInterval(() => {
      observer.sampling ??= observer.sample().finally(() => (observer.sampling = undefined));
    }, 1000);
    // Sampling alone must never keep the process alive.
    observer.timer.unref();
    return observer;
  }

  /**
   * The figures at the end. What the server must answer for (sizes, statements, its own counters) is
   * waited for until `cut` aborts: then the figures of this machine's /proc are kept, the server's
   * are left out and say why.
   */
  async stop(cut?: AbortSignal): Promise<ServerObservation> {
    clearInterval(this.timer);
    await unlessCut(() => this.sampling ?? Promise.resolve(), cut, undefined);
    const seconds = (performance.now() - this.started) / 1000;
    const machineAtEnd = this.machineAtStart && sampleMachine();
    const clientCpu = process.cpuUsage(this.clientCpuAtStart);
    const end = this.last && sampleProcesses(this.processFilter, this.last);
    if (this.last && end) this.add(growthBetween(this.last, end));
    const host = this.first
      ? {
          processes: this.grown.processes,
          cpuSeconds: round(this.grown.cpuSeconds),
          cpuPercentOfOneCore: round((this.grown.cpuSeconds / seconds) * 100),
          readBytes: this.grown.readBytes,
          writeBytes: this.grown.writeBytes,
          writeCallBytes: this.grown.writeCallBytes,
          series: this.series,
        }
      : null;
    // The admin connection may have died with the server (a crash mid-run): say so, keep the run.
    const sizesAfter = await unlessCut(() => this.observation.sizes(this.tables).catch(() => null), cut, null);
    const statements: ServerObservation['statements'] =
      this.statementsUnavailable !== undefined
        ? { unavailable: this.statementsUnavailable }
        : await unlessCut(
            () =>
              this.observation.topStatements(TOP_STATEMENTS).then(
                (top) => ({ top }),
                (error: Error) => ({ unavailable: `statement statistics could not be read at the end: ${error.message}` }),
              ),
            cut,
            { unavailable: 'statement statistics could not be read at the end: the server did not answer' },
          );
    const activity = await unlessCut(() => this.activityGrowth(), cut, undefined);
    const grown = this.machineAtStart && machineAtEnd && machineGrowth(this.machineAtStart, machineAtEnd);
    const machine = grown && {
      cpuPercentOfOneCore: round((grown.busyCpuSeconds / seconds) * 100),
      clientCpuPercentOfOneCore: round(((clientCpu.user + clientCpu.system) / 1e6 / seconds) * 100),
      disks: grown.disks,
      diskReadBytes: grown.readBytes,
      diskWriteBytes: grown.writeBytes,
    };
    const waits = this.waitsAvailable ? this.waits : null;
    const optional = { ...(machine ? { machine } : {}), ...(activity ? { activity } : {}) };
    return { sizesBefore: this.sizesBefore, sizesAfter, statements, waits, host, ...optional, samplingMs: round(this.samplingMs) };
  }

  private async activityGrowth(): Promise<Record<string, number> | undefined> {
    const before = this.activityAtStart;
    const after = before && (await this.observation.activity?.().catch(() => undefined));
    if (!before || !after) return undefined;
    return Object.fromEntries(Object.entries(after).map(([name, value]) => [name, value - (before[name] ?? 0)]));
  }

  private add(growth: ProcessGrowth): void {
    this.grown.cpuSeconds += growth.cpuSeconds;
    this.grown.readBytes += growth.readBytes;
    this.grown.writeBytes += growth.writeBytes;
    this.grown.writeCallBytes += growth.writeCallBytes;
    this.grown.processes = Math.max(this.grown.processes, growth.processes);
  }

  private async sample(): Promise<void> {
    const began = performance.now();
    const t = round((began - this.started) / 1000);
    if (this.last) {
      const now = sampleProcesses(this.processFilter, this.last);
      if (now) {
        const previousT = this.series.at(-1)?.t ?? 0;
        const growth = growthBetween(this.last, now);
        this.add(growth);
        this.series.push({
          t,
          cpuPercentOfOneCore: round((growth.cpuSeconds / Math.max(0.001, t - previousT)) * 100),
          readBytes: growth.readBytes,
          writeBytes: growth.writeBytes,
        });
        this.last = now;
      }
    }
    if (this.waitsAvailable) {
      const counts = await this.observation.waits().catch(() => undefined);
      if (counts === undefined) this.waitsAvailable = false;
      else this.waits.push({ t, counts });
    }
    this.samplingMs += performance.now() - began;
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
