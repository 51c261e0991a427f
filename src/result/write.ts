import { mkdir, writeFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { RunResult } from './result.js';
import type { SweepResult } from './sweep.js';
import type { ExperimentResult } from './experiment-result.js';

export const DEFAULT_RESULTS_DIR = 'headroom-results';
/** `-o -`: the result as JSON on stdout, and what is meant for people on stderr. */
export const STDOUT_PATH = '-';

/** headroom-results/tpcb-sqlite-20261202-132501.json */
export function defaultResultPath(result: RunResult): string {
  return path.join(DEFAULT_RESULTS_DIR, `${result.config.workload}-${result.target.dbms}-${stamp(result.startedAt)}.json`);
}

/** headroom-results/tpcb-postgres-sweep-20261202-132501.json */
export function defaultSweepPath(workload: string, dbms: string, startedAt: string): string {
  return path.join(DEFAULT_RESULTS_DIR, `${workload}-${dbms}-sweep-${stamp(startedAt)}.json`);
}

/** headroom-results/dead-rows-postgres-20261202-132501.json */
export function defaultExperimentPath(experiment: string, dbms: string, startedAt: string): string {
  return path.join(DEFAULT_RESULTS_DIR, `${experiment}-${dbms}-${stamp(startedAt)}.json`);
}

function stamp(isoTime: string): string {
  return isoTime.replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** -o -: the result as JSON on stdout; otherwise written to the file as writeResult does. */
export async function writeOutput(result: RunResult | SweepResult | ExperimentResult<unknown>, file: string): Promise<void> {
  if (file === STDOUT_PATH) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else await writeResult(result, file);
}

/** Writes through a temporary file and a rename, so a crash never leaves half a result. */
export async function writeResult(result: RunResult | SweepResult | ExperimentResult<unknown>, file: string): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(result, null, 2)}\n`);
  await rename(temporary, file);
}
