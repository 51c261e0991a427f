import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The command as package.json's bin runs it: the bundle (scripts/bundle.mjs). */
export const CLI = fileURLToPath(new URL('../../bundle/code/bin.js', import.meta.url));

/** The same command from tsc's output, one file per module (the start-up test counts modules there). */
export const UNBUNDLED_CLI = fileURLToPath(new URL('../../src/cli/bin.js', import.meta.url));

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI as a user would. `whenStderr` lets a test act once a line appears (e.g. send
 * SIGINT after the first progress line).
 */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; whenStderr?: [RegExp, (pid: number) => void]; onSpawn?: (pid: number) => void } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: options.env ?? { ...process.env, DATABASE_URL: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    let stdout = '';
    let stderr = '';
    let fired = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!fired && options.whenStderr && options.whenStderr[0].test(stderr)) {
        fired = true;
        options.whenStderr[1](child.pid!);
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
