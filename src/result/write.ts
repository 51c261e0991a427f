import { mkdir, writeFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { RunResult } from './result.js';

export const DEFAULT_RESULTS_DIR = 'headroom-results';

/** headroom-results/tpcb-sqlite-20261202-132501.json */
export function defaultResultPath(result: RunResult): string {
  const stamp = result.startedAt.replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return path.join(DEFAULT_RESULTS_DIR, `${result.config.workload}-${result.target.dbms}-${stamp}.json`);
}

/** Writes a result (or an experiment's file) through a temporary file and a rename, so a crash never leaves half a result. */
export async function writeResult(result: object, file: string): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(result, null, 2)}\n`);
  await rename(temporary, file);
}
