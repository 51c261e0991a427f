import path from 'node:path';
import { UserError } from '../errors.js';
import type { RunResult } from '../result/result.js';
import { readResult } from '../result/read.js';

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
  return files.map((file, i) => ({ file, label: labels[i]!, result: readResult(file) }));
}
