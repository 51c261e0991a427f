import { unlessCut } from '../common/unless-cut.js';
import { nodeTargets, type ServerTarget } from '../config/target.js';
import type { Connection, Driver, LagSample } from '../drivers/driver.js';
import { loadDriver } from '../drivers/registry.js';
import { round } from '../common/round.js';

export type { LagSample };

export interface ReplicationLag {
  /** Once a second during the run: seconds since the sampling started, one sample per replica. */
  series: { t: number; replicas: (LagSample & { node: string })[] }[];
  /** Per replica over the run: average and maximum of each figure. */
  replicas: { node: string; samples: number; avg: Record<string, number>; max: Record<string, number> }[];
  /** Why sampling stopped early or never began, when it did. */
  error?: string;
}

const EVERY_MS = 1000;

/**
 * Samples replica lag once a second over connections of its own (never a terminal's), so the run's
 * result can show how far behind the replicas were while they took the reads.
 */
export class ReplicaLagSampler {
  private readonly series: ReplicationLag['series'] = [];
  private timer: NodeJS.Timeout | undefined;
  private busy: Promise<void> | undefined;
  private error: string | undefined;
  private readonly started = performance.now();

  private constructor(
    private readonly drivers: Driver[],
    private readonly conns: Connection[],
    private readonly names: string[],
  ) {}

  /** Starts sampling, or answers undefined where the target's driver does not sample replica lag. */
  static async start(target: ServerTarget): Promise<ReplicaLagSampler | undefined> {
    const drivers = await Promise.all(nodeTargets(target).map((t) => loadDriver(t)));
    const sample = drivers[0]!.replicaLag?.bind(drivers[0]);
    if (!sample) {
      await Promise.all(drivers.map((d) => d.close().catch(() => {})));
      return undefined;
    }
    const conns: Connection[] = [];
    try {
      for (const driver of drivers) conns.push(await driver.connect());
    } catch (error) {
      await Promise.all(conns.map((c) => c.close().catch(() => {})));
      await Promise.all(drivers.map((d) => d.close().catch(() => {})));
      throw error;
    }
    const sampler = new ReplicaLagSampler(
      drivers,
      conns,
      drivers.slice(1).map((_, i) => `replica${i + 1}`),
    );
    sampler.timer = setInterval(() => {
      if (sampler.busy) return;
      sampler.busy = sampler.take(sample).finally(() => (sampler.busy = undefined));
    }, EVERY_MS);
    return sampler;
  }

  /** `cut`: the wait for a sample in flight ends there (a node that stopped answering). */
  async stop(cut?: AbortSignal): Promise<ReplicationLag> {
    clearInterval(this.timer);
    await unlessCut(() => this.busy ?? Promise.resolve(), cut, undefined);
    await Promise.all(this.conns.map((c) => c.close().catch(() => {})));
    await Promise.all(this.drivers.map((d) => d.close().catch(() => {})));
    const replicas = this.names.map((node, i) => {
      const samples = this.series.map((p) => p.replicas[i]!);
      const avg: Record<string, number> = {};
      const max: Record<string, number> = {};
      for (const key of ['bytes', 'replayAgeMs', 'recvQueue', 'flowControlPaused', 'behindTransactions'] as const) {
        const values = samples.map((s) => s[key]).filter((v): v is number => typeof v === 'number');
        if (values.length === 0) continue;
        avg[key] = round(values.reduce((a, b) => a + b, 0) / values.length, 3);
        max[key] = round(
          values.reduce((a, b) => Math.max(a, b), -Infinity),
          3,
        );
      }
      return { node, samples: samples.length, avg, max };
    });
    return { series: this.series, replicas, ...(this.error === undefined ? {} : { error: this.error }) };
  }

  private async take(sample: NonNullable<Driver['replicaLag']>): Promise<void> {
    try {
      const samples = await sample(this.conns[0]!, this.conns.slice(1));
      this.series.push({ t: round((performance.now() - this.started) / 1000, 3), replicas: samples.map((s, i) => ({ node: this.names[i]!, ...s })) });
    } catch (thrown) {
      // A node that stops answering ends the sampling, not the run; the result says why.
      this.error = thrown instanceof Error ? thrown.message : String(thrown);
      clearInterval(this.timer);
    }
  }
}
