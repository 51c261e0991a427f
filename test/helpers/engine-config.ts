import type { Target } from '../../src/config/target.js';
import type { EngineConfig } from '../../src/engine/engine.js';

/** An engine configuration as `headroom run` would build it with no options given, plus the test's own. */
export function engineConfig(target: Target, workload: string, own: Partial<EngineConfig>): EngineConfig {
  return {
    target,
    workload,
    options: {},
    scale: 1,
    clients: 1,
    jobs: 1,
    durationSeconds: undefined,
    transactionsPerClient: undefined,
    rate: undefined,
    warmupSeconds: 0,
    maxTries: 1,
    seed: 1,
    journal: undefined,
    acceptRefusals: false,
    protocol: 'prepared',
    perCommand: false,
    routing: undefined,
    ...own,
  };
}
