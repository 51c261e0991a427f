import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A PostgreSQL cluster of the tests' own (initdb in a temporary folder, its own port), for what
 * must not be done to the machine's shared server, such as demanding passwords in pg_hba.conf.
 * Needs the server binaries and root (initdb runs as the postgres user).
 */
export interface ThrowawayPostgres {
  port: number;
  stop(): void;
}

export function throwawayPostgresUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'a throwaway PostgreSQL cluster needs root (to run initdb as the postgres user)';
  if (!binDir()) return 'PostgreSQL server binaries are missing (apt-get install postgresql)';
  return undefined;
}

/** hba lines go first, before the catch-all the cluster is created with. */
export async function startThrowawayPostgres(hbaLines: readonly string[], setupSql: readonly string[]): Promise<ThrowawayPostgres> {
  const bin = binDir()!;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-pg-'));
  chmodSync(folder, 0o755);
  const data = path.join(folder, 'data');
  const { uid, gid } = postgresIds();
  chownSync(folder, uid, gid);
  const asPostgres = (file: string, args: string[]): string => execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, file), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=trust', '-E', 'UTF8', '--no-sync']);
  const hba = path.join(data, 'pg_hba.conf');
  writeFileSync(hba, `${hbaLines.join('\n')}\nlocal all all trust\n`);
  const port = await freePort();
  appendFileSync(path.join(data, 'postgresql.conf'), `\nport = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${folder}'\nfsync = off\nshared_buffers = 16MB\n`);
  asPostgres('pg_ctl', ['-D', data, '-l', path.join(folder, 'log'), '-w', 'start']);
  const stop = (): void => {
    try {
      asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  };
  try {
    for (const sql of setupSql) execFileSync('runuser', ['-u', 'postgres', '--', 'psql', '-h', folder, '-p', String(port), '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qc', sql], { stdio: 'pipe' });
  } catch (error) {
    stop();
    throw error;
  }
  return { port, stop };
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
