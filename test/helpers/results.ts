import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from './cli.js';

export interface RealResults {
  dir: string;
  /** A tpcb-like run on two clients with one second of warm-up. */
  warm: string;
  /** A select-only/tpcb-like mix on one client, so two transaction types. */
  mixed: string;
}

/**
 * Two real result files from short runs on an embedded SQLite database in a temporary folder,
 * which the caller removes (removeResults) when done.
 */
export async function makeResults(seconds = 2): Promise<RealResults> {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-report-'));
  const db = `sqlite:${path.join(dir, 'bench.db')}`;
  const warm = path.join(dir, 'warm.json');
  const mixed = path.join(dir, 'mixed.json');
  for (const args of [
    ['run', '--db', db, '-T', String(seconds), '-c', '2', '--warmup', '1', '-P', '0', '--out', warm],
    ['run', '--db', db, '-T', String(seconds), '-c', '1', '-b', 'select-only@5', '-b', 'tpcb-like@1', '-P', '0', '--out', mixed],
  ]) {
    const run = await runCli(args, { cwd: dir });
    if (run.code !== 0) throw new Error(`headroom ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  }
  return { dir, warm, mixed };
}

export function removeResults(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
