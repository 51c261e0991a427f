import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freshDataDirectory } from './data-template.js';
import { freePort, logTail } from './throwaway-postgres.js';

/**
 * A MariaDB server of the tests' own (mariadb-install-db into a temporary folder, its own port),
 * for what must not be done to the machine's shared server, such as killing it. The server runs
 * as a child of the test process, so a killed one is reaped and can be started again at once.
 */
export interface ThrowawayMariadb {
  port: number;
  sql(statement: string): void;
  crash(): Promise<void>;
  start(): Promise<void>;
  /** A stalled server: SIGSTOP to mariadbd; thaw() lets it go on. */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
  /** The end of the server's error log, for a failing test's message (what the server said about a restart). */
  logTail(): string;
}

export function throwawayMariadbUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'a throwaway MariaDB server needs root (to run it as the mysql user)';
  if (!existsSync('/usr/sbin/mariadbd') || !existsSync('/usr/bin/mariadb-install-db'))
    return 'MariaDB server binaries are missing (apt-get install mariadb-server)';
  return undefined;
}

/** `serverArgs` go to mariadbd (e.g. TLS settings); `clientArgs` to the mariadb command the helper runs SQL with (e.g. --ssl). */
export async function startThrowawayMariadb(serverArgs: readonly string[] = [], clientArgs: readonly string[] = []): Promise<ThrowawayMariadb> {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-mariadb-'));
  chmodSync(folder, 0o755);
  // The server runs as mysql and writes its socket and error log beside the data.
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'mysql'], { encoding: 'utf8' }));
  const owner = { uid: id('-u'), gid: id('-g') };
  chownSync(folder, owner.uid, owner.gid);
  const data = path.join(folder, 'data');
  freshDataDirectory('mariadb', data, owner, (directory) =>
    execFileSync(
      'mariadb-install-db',
      ['--user=mysql', `--datadir=${directory}`, '--auth-root-authentication-method=normal', '--skip-test-db', '--skip-name-resolve'],
      { stdio: 'pipe' },
    ),
  );
  const port = await freePort();
  const socket = path.join(folder, 'mariadb.sock');
  let server: ChildProcess | undefined;
  const admin = (args: string[]): string =>
    execFileSync('mariadb', ['--protocol=tcp', '-h', '127.0.0.1', '-P', String(port), '-uroot', ...clientArgs, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const start = async (): Promise<void> => {
    server = spawn(
      '/usr/sbin/mariadbd',
      [
        '--no-defaults',
        '--user=mysql',
        `--datadir=${data}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--socket=${socket}`,
        '--skip-name-resolve',
        '--innodb-buffer-pool-size=32M',
        '--innodb-log-file-size=16M',
        `--log-error=${path.join(folder, 'error.log')}`,
        ...serverArgs,
      ],
      { stdio: 'ignore' },
    );
    for (let tries = 0; tries < 120; tries++) {
      try {
        admin(['-e', 'SELECT 1']);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    throw new Error(`the throwaway MariaDB server did not start: ${readFileSync(path.join(folder, 'error.log'), 'utf8').slice(-800)}`);
  };
  const crash = async (): Promise<void> => {
    const running = server;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  try {
    await start();
  } catch (error) {
    await crash();
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    sql: (statement) => void admin(['-e', statement]),
    crash,
    start,
    logTail: () => logTail(path.join(folder, 'error.log')),
    freeze: () => void server?.kill('SIGSTOP'),
    thaw: () => void server?.kill('SIGCONT'),
    async stop() {
      server?.kill('SIGCONT');
      await crash();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
