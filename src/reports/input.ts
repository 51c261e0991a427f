import path from 'node:path';
import { UserError } from '../errors.js';
import type { RunResult } from '../result/result.js';
import { readResult } from '../result/read.js';
import { isExperimentFile, readExperiment } from '../experiments/read.js';

/** A result file as the reports see it: where it came from, a short name, and its content. */
export interface LoadedResult {
  file: string;
  /** The file name without .json: what tables and legends call this run. */
  label: string;
  result: RunResult;
}

/**
 * Reads and checks result files. Only the fields the reports rely on are checked, so a file from
 * a newer headroom of the same schema version (which may add fields) still reads.
 */
export function readResults(files: readonly string[]): LoadedResult[] {
  if (files.length === 0) throw new UserError('no result file given', 'name one or more files written by headroom run, e.g. headroom-results/*.json');
  const names = files.map((file) => path.basename(file).replace(/\.json$/i, ''));
  // Two runs named result.json in different folders must not share a legend entry.
  const labels = names.map((name, i) => (names.indexOf(name) === names.lastIndexOf(name) ? name : path.relative('.', files[i]!).replace(/\.json$/i, '')));
  // An experiment file stands for its steps: each run inside is reported as a run of its own.
  return files.flatMap((file, i) =>
    isExperimentFile(file)
      ? readExperiment(file).runs.map((result, step, runs) => ({ file, label: `${labels[i]!}:${stepName(result, runs.length, step)}`, result }))
      : [{ file, label: labels[i]!, result: readResult(file) }],
  );
}

/** A peak step by its query, a growth step by its scale. */
function stepName(result: RunResult, steps: number, step: number): string {
  const query = result.config.workloadOptions['query'];
  if (typeof query === 'string') return query;
  return steps > 1 ? `scale ${result.config.scale}` : String(step + 1);
}
