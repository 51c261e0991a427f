import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../../errors.js';

/** Where Debian's libpq keeps the system-wide pg_service.conf when PGSYSCONFDIR is not set (its SYSCONFDIR). */
const DEFAULT_SYSCONFDIR = '/etc/postgresql-common';

type Env = Readonly<Record<string, string | undefined>>;

const SERVICE_HINT = 'define it as [name] followed by key=value lines in ~/.pg_service.conf, the file PGSERVICEFILE names, or PGSYSCONFDIR/pg_service.conf';

/**
 * A connection service's `key=value` lines, found as libpq finds them: PGSERVICEFILE (else
 * ~/.pg_service.conf), then PGSYSCONFDIR/pg_service.conf; the first file that defines the service
 * is used. A service no file defines is an error, as in libpq. Returns the entries with the
 * file and line they came from (for errors about them).
 */
export function readService(name: string, env: Env, home: string): { file: string; entries: [key: string, value: string, line: number][] } {
  const userFile = env['PGSERVICEFILE'] ?? path.join(home, '.pg_service.conf');
  const systemFile = path.join(env['PGSYSCONFDIR'] ?? DEFAULT_SYSCONFDIR, 'pg_service.conf');
  for (const file of [userFile, systemFile]) {
    if (!existsSync(file)) continue;
    const entries = serviceEntries(file, name);
    if (entries) return { file, entries };
  }
  throw new UserError(`definition of service "${name}" not found (looked in ${userFile} and ${systemFile})`, SERVICE_HINT);
}

/** libpq's parseServiceFile: the entries of group [name], or undefined when the file has no such group. */
function serviceEntries(file: string, name: string): [string, string, number][] | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UserError(`cannot read the service file "${file}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, SERVICE_HINT);
  }
  let found = false;
  const entries: [string, string, number][] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[')) {
      if (found) break;
      // As libpq: the name between the brackets, whatever follows them.
      found = line.startsWith(`[${name}]`);
      continue;
    }
    if (!found) continue;
    const eq = line.indexOf('=');
    if (eq < 0) throw new UserError(`syntax error in service file "${file}", line ${i + 1}: expected key=value`, SERVICE_HINT);
    const key = line.slice(0, eq);
    if (key === 'service')
      throw new UserError(`nested service specifications not supported in service file "${file}", line ${i + 1}`, 'remove the service= line');
    entries.push([key, line.slice(eq + 1), i + 1]);
  }
  return found ? entries : undefined;
}
