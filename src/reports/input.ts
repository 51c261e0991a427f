import path from 'node:path';
import { UserError } from '../errors.js';
import type { RunResult } from '../result/result.js';
import { readResultFile } from '../result/read.js';
import { isExperimentFile, readExperiment } from '../result/read-experiment.js';
import type { ExperimentResult } from '../result/experiment-result.js';
import type { ChainStudyRow } from '../result/experiment-rows.js';
import type { SweepResult } from '../result/sweep.js';

/** A result file as the reports see it: where it came from, a short name, and its content. */
export interface LoadedResult {
  file: string;
  /** The file name without .json: what tables and legends call this run. */
  label: string;
  result: RunResult;
  /** A step of an experiment file: reported on its own, never as a ratio to another step. */
  experimentStep?: boolean;
}

/** An experiment file as the reports see it: its own table and chart besides its steps' runs. */
export interface LoadedExperiment {
  file: string;
  label: string;
  experiment: ExperimentResult<Record<string, unknown>>;
}

/** A sweep file as the reports see it. */
export interface LoadedSweep {
  file: string;
  label: string;
  sweep: SweepResult;
}

export interface LoadedInputs {
  runs: LoadedResult[];
  sweeps: LoadedSweep[];
  experiments: LoadedExperiment[];
}

/**
 * Reads and checks result files and sweep files, in the order given. Only the fields the reports
 * rely on are checked, so a file from a newer headroom of the same schema version (which may add
 * fields) still reads.
 */
export function readResults(files: readonly string[]): LoadedInputs {
  if (files.length === 0) throw new UserError('no result file given', 'name one or more files written by headroom run, e.g. headroom-results/*.json');
  const names = files.map((file) => path.basename(file).replace(/\.json$/i, ''));
  // Two runs named result.json in different folders must not share a legend entry.
  const labels = names.map((name, i) => (names.indexOf(name) === names.lastIndexOf(name) ? name : path.relative('.', files[i]!).replace(/\.json$/i, '')));
  const inputs: LoadedInputs = { runs: [], sweeps: [], experiments: [] };
  files.forEach((file, i) => {
    // An experiment file stands for its steps: each run inside is reported as a run of its own.
    if (isExperimentFile(file)) {
      const experiment = readExperiment(file);
      const names = stepNames(experiment);
      inputs.experiments.push({ file, label: labels[i]!, experiment });
      experiment.runs.forEach((result, step) => inputs.runs.push({ file, label: `${labels[i]!}:${names[step]!}`, result, experimentStep: true }));
      return;
    }
    const read = readResultFile(file);
    if (read.kind === 'run') inputs.runs.push({ file, label: labels[i]!, result: read.result });
    else inputs.sweeps.push({ file, label: labels[i]!, sweep: read.sweep });
  });
  return inputs;
}

/** A sweep's steps as runs, labelled "sweep@clients", for outputs made of runs (the CSV series). */
export function stepsAsRuns(sweep: LoadedSweep): LoadedResult[] {
  return sweep.sweep.steps.map((result) => ({ file: sweep.file, label: `${sweep.label}@${result.config.clients}`, result }));
}

/**
 * The names of an experiment's runs: dead-rows' by its run rows (read, update, read after update,
 * ...), chain-study's by what differs between its runs, the others' by stepName.
 */
function stepNames(experiment: ExperimentResult<Record<string, unknown>>): string[] {
  const named = experiment.rows.filter((r) => r['kind'] === 'run' && typeof r['name'] === 'string').map((r) => r['name'] as string);
  if (named.length === experiment.runs.length) return named;
  if (experiment.experiment === 'chain-study' && experiment.rows.length === experiment.runs.length)
    return chainStudyStepNames(experiment.rows as unknown as ChainStudyRow[]);
  return experiment.runs.map((result, step, runs) => stepName(result, runs.length, step));
}

/**
 * The chain study's runs share their scale: each is named by its kind and number and its
 * terminals ("distributed 2, 33 terminals", "localized, 20 terminals"), after its statement style
 * where the file holds both.
 */
export function chainStudyStepNames(rows: readonly ChainStudyRow[]): string[] {
  const styles = new Set(rows.map((r) => r.statements)).size > 1;
  return rows.map((r) => {
    const [kind, number] = r.run.split(' ');
    const name = kind === 'distributed' ? `distributed ${number}, ${r.terminals} terminals` : `${kind}, ${r.terminals} terminals`;
    return styles ? `${r.statements} ${name}` : name;
  });
}

/** A peak step by its query, a growth step by its scale. */
function stepName(result: RunResult, steps: number, step: number): string {
  const query = result.config.workloadOptions['query'];
  if (typeof query === 'string') return query;
  return steps > 1 ? `scale ${result.config.scale}` : String(step + 1);
}
