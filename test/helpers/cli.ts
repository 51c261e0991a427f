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
 * A command still running after this long has hung: the slowest test takes about 100 s in all. It is
 * interrupted (so that it prints where it waits) and then killed, and the test fails naming it,
 * instead of the whole file running into the test runner's limit without a word on which one.
 */
const HUNG_AFTER_MS = 240_000;
/** After the interrupt, how long the hung command has to print where it waited before it is killed. */
const KILL_AFTER_MS = 10_000;

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
    let hung = false;
    const kill = setTimeout(() => {
      hung = true;
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS).unref();
    }, HUNG_AFTER_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(kill);
      if (!hung) return resolve({ code, signal, stdout, stderr });
      reject(
        new Error(
          `headroom ${args.join(' ')} hung: still running after ${HUNG_AFTER_MS / 1000} s, then interrupted; its stderr:\n${stderr}\nits stdout:\n${stdout}`,
        ),
      );
    });
  });
}
