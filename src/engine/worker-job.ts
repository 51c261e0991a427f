import { Worker } from 'node:worker_threads';
import type { DbError } from '../drivers/errors.js';
import type { JobTotals, WireIntervalSnapshot } from '../metrics/recorder.js';
import type { JobConfig, JobHandle, JobStopped } from './job.js';
import { fromThreadError, type ThreadError } from './thread-error.js';
import { InterruptedError } from '../errors.js';

export type ToWorker = { kind: 'run' } | { kind: 'measure'; on: boolean } | { kind: 'tick' } | { kind: 'stop' } | { kind: 'hurry' };

type FromWorker =
  | { kind: 'ready' }
  | { kind: 'failed'; error: ThreadError }
  | { kind: 'finished' }
  | { kind: 'run-failed'; error: ThreadError }
  | { kind: 'interval'; snapshot: WireIntervalSnapshot }
  | { kind: 'stopped'; totals: JobTotals; aborted: ThreadError | undefined; failure: ThreadError | undefined };

interface Waiter {
  resolve(message: FromWorker): void;
  reject(error: Error): void;
}

/** The main thread's side of a worker thread running a share of the terminals (pgbench's -j). */
export class WorkerJob implements JobHandle {
  private readonly waiting = new Map<FromWorker['kind'], Waiter[]>();
  /** Why the thread ended before it was stopped; every wait on it then fails at once instead of never ending. */
  private died: Error | undefined;
  private stopped = false;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: FromWorker) => this.waiting.get(message.kind)?.shift()?.resolve(message));
    worker.on('error', (error) => this.die(error));
    worker.on('exit', (code) => this.die(new Error(`its worker thread ended (exit code ${code})`)));
  }

  /** Ctrl-C (`signal`) while it opens ends the thread, with what it opened. */
  static async open(config: JobConfig, signal?: AbortSignal): Promise<WorkerJob> {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: config });
    const job = new WorkerJob(worker);
    const onAbort = (): void => void worker.terminate();
    signal?.addEventListener('abort', onAbort, { once: true });
    const first = await new Promise<FromWorker>((resolve, reject) => {
      job.expect('ready').then(resolve, reject);
      job.expect('failed').then(resolve, reject);
    })
      .catch((error: unknown) => {
        throw signal?.aborted ? new InterruptedError('interrupted while the terminals were connecting') : error;
      })
      .finally(() => signal?.removeEventListener('abort', onAbort));
    if (first.kind === 'failed') {
      await worker.terminate();
      throw fromThreadError(first.error);
    }
    return job;
  }

  /** Rejects when the job's terminals failed (the thread still answers tick and stop) or the thread died. */
  async run(): Promise<void> {
    const failed = this.expect('run-failed');
    const finished = this.expect('finished');
    this.worker.postMessage({ kind: 'run' } satisfies ToWorker);
    const ended = await Promise.race([finished, failed]);
    if (ended.kind === 'run-failed') throw fromThreadError(ended.error);
  }

  async setMeasuring(on: boolean): Promise<void> {
    this.worker.postMessage({ kind: 'measure', on } satisfies ToWorker);
  }

  async tick(): Promise<WireIntervalSnapshot> {
    const reply = this.expect('interval');
    this.worker.postMessage({ kind: 'tick' } satisfies ToWorker);
    return ((await reply) as Extract<FromWorker, { kind: 'interval' }>).snapshot;
  }

  hurry(): void {
    this.worker.postMessage({ kind: 'hurry' } satisfies ToWorker);
  }

  /** Rejects when the thread died: what it measured died with it. */
  async stop(): Promise<JobStopped> {
    const reply = this.expect('stopped');
    this.worker.postMessage({ kind: 'stop' } satisfies ToWorker);
    const { totals, aborted, failure } = (await reply) as Extract<FromWorker, { kind: 'stopped' }>;
    this.stopped = true;
    await this.worker.terminate();
    return { totals, aborted: aborted && (fromThreadError(aborted) as DbError), failure: failure && fromThreadError(failure) };
  }

  private expect(kind: FromWorker['kind']): Promise<FromWorker> {
    return new Promise((resolve, reject) => {
      if (this.died) return reject(this.died);
      const queue = this.waiting.get(kind) ?? [];
      queue.push({ resolve, reject });
      this.waiting.set(kind, queue);
    });
  }

  private die(error: Error): void {
    if (this.stopped || this.died) return;
    this.died = error;
    for (const queue of this.waiting.values()) for (const waiter of queue.splice(0)) waiter.reject(error);
  }
}
