import { formatOptionHelp, type OptionSpec } from '../config/options.js';
import { UserError } from '../errors.js';
import { DEAD_ROWS_OPTIONS, deadRowsExperiment } from '../experiments/dead-rows-command.js';
import { GROWTH_OPTIONS, growthExperiment } from '../experiments/growth.js';
import { PEAK_OPTIONS, peakExperiment } from '../experiments/peak.js';
import { CHAIN_STUDY_OPTIONS, chainStudyExperiment } from '../experiments/chain-study.js';
import type { ExperimentName } from './experiment-names.js';

/** The named experiments of docs/experiments.md; each lives in src/experiments/, this only dispatches. */
export const EXPERIMENTS: Record<
  ExperimentName,
  {
    summary: string;
    options: readonly OptionSpec[];
    run(argv: readonly string[]): Promise<number>;
    footer?: string;
    /** Why it refuses --agents, where it does. */ noAgents?: string;
  }
> = {
  peak: {
    summary: 'the seven simple queries of the peak queries/s study, each with its clients, one table',
    options: PEAK_OPTIONS,
    run: peakExperiment,
    noAgents: "its client-bound mark weighs this machine's client CPU against this machine's cores",
  },
  growth: {
    summary: 'load the data at growing sizes and run the same load at each: size against throughput, RAM marked',
    options: GROWTH_OPTIONS,
    run: growthExperiment,
    footer: "the workload's own options (e.g. tpcb -b select-only) apply at every size: see headroom list",
  },
  'chain-study': {
    summary:
      "the address-chain study's sequence: three distributed runs from its generator offsets, then localized runs at 10, 20, ... terminals until refused",
    options: CHAIN_STUDY_OPTIONS,
    run: chainStudyExperiment,
    noAgents: "it re-runs the study's terminals from one client machine, and its Total time and waits are that client's",
  },
  'dead-rows': {
    summary: "the kv read test, the update test, the read test, the DBMS's maintenance (VACUUM), the read test; table sizes and dead rows around each step",
    options: DEAD_ROWS_OPTIONS,
    run: deadRowsExperiment,
  },
};

const NAME_WIDTH = Math.max(...Object.keys(EXPERIMENTS).map((name) => name.length)) + 2;

export async function experimentCommand(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    process.stdout.write(
      `usage: headroom experiment NAME [options]\n\n${Object.entries(EXPERIMENTS)
        .map(([n, e]) => `  ${n.padEnd(NAME_WIDTH)}${e.summary}`)
        .join('\n')}\n\nheadroom experiment NAME --help shows its options.\n`,
    );
    return name === undefined ? 2 : 0;
  }
  const experiment = name === undefined || !Object.hasOwn(EXPERIMENTS, name) ? undefined : EXPERIMENTS[name as ExperimentName];
  if (!experiment)
    throw new UserError(
      name === undefined ? 'which experiment?' : `unknown experiment "${name}"`,
      `experiments: ${Object.keys(EXPERIMENTS).join(', ')} (headroom experiment NAME --help)`,
    );
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(
      `usage: headroom experiment ${name} [options]\n\n${experiment.summary}\n\noptions:\n${formatOptionHelp(experiment.options)}\n${experiment.footer ? `\n${experiment.footer}\n` : ''}`,
    );
    return 0;
  }
  if (experiment.noAgents && rest.some((arg) => arg === '--agents' || arg.startsWith('--agents=')))
    throw new UserError(`experiment ${name} does not take --agents: ${experiment.noAgents}`, 'run it without --agents (growth and dead-rows take it)');
  return experiment.run(rest);
}
