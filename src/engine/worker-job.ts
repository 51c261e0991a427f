import { Worker } from 'node:worker_threads';
import type { DbError } from '../drivers/errors.js';
import type { IntervalSnapshot, JobTotals } from '../metrics/recorder.js';
import type { JobConfig, JobHandle } from './job.js';
import { fromWire, type WireError } from './wire-error.js';

export type ToWorker = { kind: 'run' } | { kind: 'measure'; on: boolean } | { kind: 'tick' } | { kind: 'stop' };

type FromWorker =
  | { kind: 'ready' }
  | { kind: 'failed'; error: WireError }
  | { kind: 'finished' }
  | { kind: 'interval'; snapshot: IntervalSnapshot }
  | { kind: 'stopped'; totals: JobTotals; aborted: WireError | undefined };

/** The main thread's side of a worker thread running a share of the terminals (pgbench's -j). */
export class WorkerJob implements JobHandle {
  private readonly waiting = new Map<FromWorker['kind'], ((message: FromWorker) => void)[]>();

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: FromWorker) => this.waiting.get(message.kind)?.shift()?.(message));
  }

  static async open(config: JobConfig): Promise<WorkerJob> {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: config });
    const job = new WorkerJob(worker);
    const first = await new Promise<FromWorker>((resolve, reject) => {
      job.expect('ready').then(resolve, reject);
      job.expect('failed').then(resolve, reject);
      worker.once('error', reject);
    });
    if (first.kind === 'failed') {
      await worker.terminate();
      throw fromWire(first.error);
    }
    return job;
  }

  async run(): Promise<void> {
    const finished = this.expect('finished');
    this.worker.postMessage({ kind: 'run' } satisfies ToWorker);
    await finished;
  }

  async setMeasuring(on: boolean): Promise<void> {
    this.worker.postMessage({ kind: 'measure', on } satisfies ToWorker);
  }

  async tick(): Promise<IntervalSnapshot> {
    const reply = this.expect('interval');
    this.worker.postMessage({ kind: 'tick' } satisfies ToWorker);
    return ((await reply) as Extract<FromWorker, { kind: 'interval' }>).snapshot;
  }

  async stop(): Promise<{ totals: JobTotals; aborted: DbError | undefined }> {
    const reply = this.expect('stopped');
    this.worker.postMessage({ kind: 'stop' } satisfies ToWorker);
    const { totals, aborted } = (await reply) as Extract<FromWorker, { kind: 'stopped' }>;
    await this.worker.terminate();
    return { totals, aborted: aborted && (fromWire(aborted) as DbError) };
  }

  private expect(kind: FromWorker['kind']): Promise<FromWorker> {
    return new Promise((resolve) => {
      const queue = this.waiting.get(kind) ?? [];
      queue.push(resolve);
      this.waiting.set(kind, queue);
    });
  }
}
