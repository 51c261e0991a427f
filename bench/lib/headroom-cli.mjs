// headroom's built CLI run to completion from a bench script: its output, or an error with what
// it printed when it exits non-zero. DATABASE_URL is cleared so that only the --db given counts.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The command as package.json's bin runs it: the bundle (scripts/bundle.mjs); every bench runs this one. */
export const HEADROOM_CLI = fileURLToPath(new URL('../../dist/bundle/code/bin.js', import.meta.url));

export function headroom(args) {
  const run = spawnSync(process.execPath, [HEADROOM_CLI, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATABASE_URL: '' },
  });
  if (run.status !== 0) throw new Error(`headroom ${args.join(' ')} exited ${run.status}:\n${run.stderr}\n${run.stdout}`.trimEnd());
  return run;
}
