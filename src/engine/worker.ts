import { parentPort, workerData } from 'node:worker_threads';
import { LocalJob, type JobConfig } from './job.js';
import { toThreadError } from './thread-error.js';
import { wireSnapshot } from '../metrics/recorder.js';
import type { ToWorker } from './worker-job.js';

/** A worker thread (-j): runs one LocalJob and answers the main thread's messages. */
const port = parentPort!;
try {
  const job = await LocalJob.open(workerData as JobConfig);
  port.on('message', (message: ToWorker) => {
    switch (message.kind) {
      case 'run':
        // A failure of the terminals' loops (a log write on a full disk) is reported, and the thread
        // stays to give its totals at the stop.
        void job.run().then(
          () => port.postMessage({ kind: 'finished' }),
          (error: unknown) => port.postMessage({ kind: 'run-failed', error: toThreadError(error) }),
        );
        break;
      case 'measure':
        void job.setMeasuring(message.on);
        break;
      case 'tick':
        void job.tick().then((snapshot) => port.postMessage({ kind: 'interval', snapshot: wireSnapshot(snapshot) }));
        break;
      case 'hurry':
        job.hurry();
        break;
      case 'stop':
        void job.stop().then(({ totals, aborted, failure }) => {
          port.postMessage({ kind: 'stopped', totals, aborted: aborted && toThreadError(aborted), failure: failure && toThreadError(failure) });
          port.close();
        });
        break;
    }
  });
  port.postMessage({ kind: 'ready' });
} catch (error) {
  port.postMessage({ kind: 'failed', error: toThreadError(error) });
}
