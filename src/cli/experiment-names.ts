/**
 * The experiments by name, each in a few words: `headroom --help` lists them without loading the
 * experiments' code, and experiment.ts keys its table by these names, so that neither can leave
 * one out.
 */
export const EXPERIMENT_NAMES = {
  peak: 'simple queries/s',
  growth: 'throughput as the data grows',
  'chain-study': "the address-chain study's distributed and localized runs",
  'dead-rows': 'kv read, update, read, VACUUM, read',
} as const;

export type ExperimentName = keyof typeof EXPERIMENT_NAMES;
