import type { Target } from '../config/target.js';
import { runsOnThisMachine } from '../config/target.js';
import type { Connection, Driver, ServerInfo } from '../drivers/driver.js';
import { runEngine } from '../engine/engine.js';
import type { SeriesPoint } from '../engine/measurements.js';
import type { OptionValues } from '../config/options.js';
import { RunObserver } from '../observe/run-observer.js';
import { buildResult } from '../result/build.js';
import type { RunResult } from '../result/result.js';

export interface StepServer {
  target: Target;
  url: string;
  driver: Driver;
  /** The admin connection the observer reads the server's statistics over. */
  conn: Connection;
  info: ServerInfo;
}

export interface StepRunConfig {
  workload: string;
  options: OptionValues;
  scale: number;
  clients: number;
  jobs: number;
  durationSeconds: number;
  maxTries: number;
  seed: number;
  argv: string[];
}

/** One measured run of an experiment, observed and turned into a result as `headroom run` does. */
export async function measureRun(server: StepServer, config: StepRunConfig, signal: AbortSignal, onInterval: (point: SeriesPoint) => void): Promise<RunResult> {
  const observer = await RunObserver.start(server.driver.observe(server.conn), runsOnThisMachine(server.target));
  const engineConfig = {
    ...config,
    target: server.target,
    transactionsPerClient: undefined,
    rate: undefined,
    warmupSeconds: 0,
    journal: undefined,
    acceptRefusals: false,
    // Every run goes to the primary: the experiment measures one table on one server.
    routing: undefined,
    // The kv tests are prepared statements, as `headroom run` runs them by default.
    protocol: 'prepared' as const,
    perCommand: false,
  };
  const outcome = await runEngine(engineConfig, signal, onInterval).catch(async (error: unknown) => {
    await observer.stop().catch(() => undefined);
    throw error;
  });
  const observed = await observer.stop();
  return buildResult({
    outcome,
    server: server.info,
    observed,
    url: server.url,
    data: { loadedBy: 'earlier', phases: [] },
    config: {
      workload: config.workload,
      workloadOptions: config.options,
      scale: config.scale,
      clients: config.clients,
      jobs: config.jobs,
      durationSeconds: config.durationSeconds,
      transactionsPerClient: null,
      rate: null,
      warmupSeconds: 0,
      maxTries: config.maxTries,
      seed: config.seed,
      journal: null,
      argv: config.argv,
    },
    ...(outcome.status === 'interrupted'
      ? { statusReason: 'interrupted by a signal' }
      : outcome.failure
        ? { statusReason: `terminals stopped on a bad request: ${outcome.failure.message}` }
        : {}),
  });
}
