import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freshDataDirectory } from './data-template.js';

/**
 * A PostgreSQL cluster of the tests' own (initdb in a temporary folder, its own port), for what
 * must not be done to the machine's shared server, such as demanding passwords in pg_hba.conf.
 * Needs the server binaries and root (initdb runs as the postgres user).
 */
export interface ThrowawayPostgres {
  port: number;
  /** Runs SQL as the superuser over the cluster's own socket. */
  psql(sql: string): void;
  /** A crash: SIGKILL to the postmaster and every process it started. */
  crash(): void;
  /** Starts the server again (crash recovery runs first) and waits until it accepts connections. */
  start(): void;
  /** A stalled server: SIGSTOP to the postmaster and every process it started; thaw() lets them go on. */
  freeze(): void;
  thaw(): void;
  stop(): void;
  /** The end of the server's log, for a failing test's message (what the server said about a restart). */
  logTail(): string;
}

export function throwawayPostgresUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'a throwaway PostgreSQL cluster needs root (to run initdb as the postgres user)';
  if (!binDir()) return 'PostgreSQL server binaries are missing (apt-get install postgresql)';
  return undefined;
}

/** hba lines go first, before the catch-all the cluster is created with. */
export async function startThrowawayPostgres(
  hbaLines: readonly string[],
  setupSql: readonly string[],
  settings: readonly string[] = [],
): Promise<ThrowawayPostgres> {
  const bin = binDir()!;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-pg-'));
  chmodSync(folder, 0o755);
  const data = path.join(folder, 'data');
  const { uid, gid } = postgresIds();
  chownSync(folder, uid, gid);
  const asPostgres = (file: string, args: string[]): string =>
    execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, file), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  freshDataDirectory(`postgres-${path.basename(path.dirname(bin))}`, data, { uid, gid }, (directory) =>
    asPostgres('initdb', ['-D', directory, '-U', 'postgres', '--auth-local=trust', '--auth-host=trust', '-E', 'UTF8', '--no-sync']),
  );
  const hba = path.join(data, 'pg_hba.conf');
  writeFileSync(hba, `${hbaLines.join('\n')}\nlocal all all trust\n`);
  const port = await freePort();
  appendFileSync(
    path.join(data, 'postgresql.conf'),
    `\nport = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${folder}'\nshared_buffers = 16MB\n${settings.join('\n')}\n`,
  );
  const start = (): void => void asPostgres('pg_ctl', ['-D', data, '-l', path.join(folder, 'log'), '-w', '-t', '60', 'start']);
  start();
  const stop = (): void => {
    try {
      asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      if (existsSync(path.join(data, 'postmaster.pid'))) crash();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  };
  const psql = (sql: string): void =>
    void execFileSync('runuser', ['-u', 'postgres', '--', 'psql', '-h', folder, '-p', String(port), '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qc', sql], {
      stdio: 'pipe',
    });
  const crash = (): void => {
    const postmaster = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    // Stopped first, the postmaster can start no process between the listing of its children and
    // the kill: a backend or autovacuum worker forked in that window would outlive the crash and
    // write into the data directory of the server started after it.
    process.kill(postmaster, 'SIGSTOP');
    waitFor(() => ['T', 'Z', undefined].includes(processState(postmaster)), 5_000);
    const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
    const killed = [postmaster, ...children];
    for (const pid of killed) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    // A process killed inside a system call (a write, an fsync) finishes that call first: the next
    // server starts only once none of the old ones can write any more.
    waitFor(() => killed.every((pid) => ['Z', undefined].includes(processState(pid))), 30_000);
    // Where nothing reaps orphans (a container whose first process does not), the killed
    // postmaster stays a zombie and PostgreSQL would take it for a live server: its lock file
    // and socket lock files go, as an administrator would remove them after a crash.
    rmSync(path.join(data, 'postmaster.pid'), { force: true });
    rmSync(path.join(folder, `.s.PGSQL.${port}.lock`), { force: true });
  };
  let frozen: number[] = [];
  const freeze = (): void => {
    const postmaster = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGSTOP');
    const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
    for (const pid of children) process.kill(pid, 'SIGSTOP');
    frozen = [postmaster, ...children];
  };
  const thaw = (): void => {
    for (const pid of frozen.reverse()) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone
      }
    }
    frozen = [];
  };
  try {
    for (const sql of setupSql) psql(sql);
  } catch (error) {
    stop();
    throw error;
  }
  return { port, psql, crash, start, freeze, thaw, stop: () => (thaw(), stop()), logTail: () => logTail(path.join(folder, 'log')) };
}

/** The last lines of a server's log file, or a word saying there is none. */
export function logTail(file: string, lines = 30): string {
  if (!existsSync(file)) return `(no log at ${file})`;
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => path.join(root, v, 'bin')).find((dir) => existsSync(path.join(dir, 'initdb')));
}

function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
  return { uid: id('-u'), gid: id('-g') };
}

/** A TCP port on loopback that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** A process's state letter from /proc (R, S, D, T, Z, ...), undefined when it is gone. */
function processState(pid: number): string | undefined {
  try {
    return /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** Polls `done` every 10 ms (the helper's crash() is synchronous); throws when it is not true within `ms`. */
function waitFor(done: () => boolean, ms: number): void {
  const until = Date.now() + ms;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!done()) {
    if (Date.now() > until) throw new Error(`the throwaway PostgreSQL's processes did not stop within ${ms} ms`);
    Atomics.wait(pause, 0, 0, 10);
  }
}
