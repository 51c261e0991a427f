import { readFileSync } from 'node:fs';
import { UserError } from '../errors.js';
import { redactArgv } from '../config/redact.js';
import { EXPERIMENT_SCHEMA, type ExperimentResult } from './experiment-result.js';

/** The schema a JSON file says it has, or undefined when it is not JSON with a "schema" string. */
export function schemaOf(file: string): string | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    const schema = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)['schema'] : undefined;
    return typeof schema === 'string' ? schema : undefined;
  } catch {
    return undefined;
  }
}

export function isExperimentFile(file: string): boolean {
  return schemaOf(file)?.startsWith('headroom.experiment/') === true;
}

/** Reads and checks an experiment file (the fields compare relies on). */
export function readExperiment(file: string): ExperimentResult<Record<string, unknown>> {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  if (parsed['schema'] !== EXPERIMENT_SCHEMA) {
    throw new UserError(
      `${file} has schema ${String(parsed['schema'])}; this version of headroom reads ${EXPERIMENT_SCHEMA}`,
      'use the headroom version that wrote it, or rerun the experiment with this one',
    );
  }
  if (typeof parsed['experiment'] !== 'string' || !Array.isArray(parsed['rows']) || !Array.isArray(parsed['runs']) || typeof parsed['target'] !== 'object') {
    throw new UserError(`${file} is a damaged experiment file (experiment, rows, runs or target missing)`, 'rerun the experiment to write it again');
  }
  const experiment = parsed as unknown as ExperimentResult<Record<string, unknown>>;
  // Files written before the command line was redacted at the source still hold passwords: never show them.
  if (Array.isArray(experiment.argv)) experiment.argv = redactArgv(experiment.argv);
  for (const run of experiment.runs) {
    if (!Array.isArray(run?.config?.argv)) continue;
    run.config.argv = redactArgv(run.config.argv);
    // Runs written before config.verb was recorded: a step's command is the experiment's (chain-study's stored none).
    if (run.config.verb === undefined) {
      run.config.verb = `experiment ${experiment.experiment}`;
      if (run.config.argv.length === 0 && Array.isArray(experiment.argv)) run.config.argv = [...experiment.argv];
    }
  }
  return experiment;
}
