import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './throwaway-postgres.js';

/**
 * A Firebird 3 server of the test's own, for settings the machine's shared server must keep (its
 * firebird.conf is never touched): a root folder of its own (the packaged one's binaries,
 * plugins and messages linked in; firebird.conf copied with `settings` appended), its own port,
 * lock folder and a copy of the security database (so SYSDBA's password is the shared one's).
 */
export interface ThrowawayFirebird {
  port: number;
  folder: string;
  /** Runs an isql-fb script as SYSDBA (its CREATE DATABASE or CONNECT names the database). */
  isql(script: string): string;
  stop(): Promise<void>;
}

const PACKAGED_ROOT = '/usr/lib/x86_64-linux-gnu/firebird/3.0';
const SHARED_CONF = '/etc/firebird/3.0/firebird.conf';
const SHARED_SECURITY_DB = '/var/lib/firebird/3.0/system/security3.fdb';

export function throwawayFirebirdUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'a throwaway Firebird server needs root (to read the security database and run the server)';
  for (const needed of ['/usr/sbin/firebird', '/usr/bin/isql-fb', PACKAGED_ROOT, SHARED_CONF, SHARED_SECURITY_DB]) {
    if (!existsSync(needed))
      return `${needed} is missing: a throwaway Firebird 3 server needs the Debian firebird3.0-server package (bash scripts/firebird.sh)`;
  }
  return undefined;
}

export async function startThrowawayFirebird(settings: readonly string[], sysdbaPassword: string): Promise<ThrowawayFirebird> {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-firebird-'));
  for (const entry of ['UDF', 'intl', 'lib', 'plugins', 'firebird.msg', 'plugins.conf', 'fbtrace.conf'])
    symlinkSync(path.join(PACKAGED_ROOT, entry), path.join(folder, entry));
  mkdirSync(path.join(folder, 'lock'));
  const security = path.join(folder, 'security3.fdb');
  copyFileSync(SHARED_SECURITY_DB, security);
  const port = await freePort();
  const shared = readFileSync(SHARED_CONF, 'utf8').replace(/^\s*(RemoteServicePort|SecurityDatabase|WireCrypt)\s*=.*$/gm, '');
  writeFileSync(path.join(folder, 'firebird.conf'), `${shared}\nRemoteServicePort = ${port}\nSecurityDatabase = ${security}\n${settings.join('\n')}\n`);
  writeFileSync(path.join(folder, 'databases.conf'), `security.db = ${security}\n{\n  RemoteAccess = false\n}\n`);
  const env = { ...process.env, FIREBIRD: folder, FIREBIRD_LOCK: path.join(folder, 'lock'), FIREBIRD_TMP: folder };
  const server: ChildProcess = spawn('/usr/sbin/firebird', ['-p', String(port), '-e', folder, '-el', path.join(folder, 'lock')], {
    env,
    stdio: 'ignore',
    cwd: folder,
  });
  const stop = async (): Promise<void> => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      // The server waits for its attachments on SIGTERM; one a failed login left half open would
      // keep it (and the test) waiting for good.
      const killer = setTimeout(() => server.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(folder, { recursive: true, force: true });
  };
  for (let tries = 0; ; tries++) {
    const listening = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (listening) break;
    if (tries > 80 || server.exitCode !== null) {
      await stop();
      throw new Error('the throwaway Firebird server did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const isql = (script: string): string =>
    execFileSync('isql-fb', ['-q', '-user', 'SYSDBA', '-password', sysdbaPassword], { input: script, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  return { port, folder, isql, stop };
}
