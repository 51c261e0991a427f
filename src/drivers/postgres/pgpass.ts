import { readFileSync, statSync } from 'node:fs';

/** Where Debian's libpq looks for the server's socket when no host is given (DEFAULT_PGSOCKET_DIR). */
export const DEFAULT_SOCKET_DIR = '/var/run/postgresql';

export interface PgpassKey {
  /** A host name, an address, or a socket folder. */
  host: string;
  port: number;
  database: string;
  user: string;
}

/**
 * The password for `key` from a libpq password file (~/.pgpass or PGPASSFILE), read by libpq's
 * rules: lines `hostname:port:database:username:password`, `*` matches anything, `\` escapes `:`
 * and `\`, `#` starts a comment line, the first matching line wins; the default socket folder
 * matches `localhost`. A file that is missing gives nothing; one that is not a plain file, or
 * that its group or others may read, is ignored with a warning, as libpq does.
 */
export function passwordFromPgpass(file: string, key: PgpassKey, warn: (message: string) => void): string | undefined {
  let mode: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) {
      warn(`password file "${file}" is not a plain file; it is ignored`);
      return undefined;
    }
    mode = stat.mode;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) !== 0) {
    warn(`password file "${file}" has group or world access and is ignored; permissions should be u=rw (0600) or less: chmod 600 ${file}`);
    return undefined;
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    warn(`password file "${file}" cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); it is ignored`);
    return undefined;
  }
  const host = key.host === DEFAULT_SOCKET_DIR ? 'localhost' : key.host;
  const fields = [host, String(key.port), key.database, key.user];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line === '' || line.startsWith('#')) continue;
    let at = 0;
    for (const field of fields) {
      at = matchField(line, at, field);
      if (at < 0) break;
    }
    if (at >= 0) return unescapePassword(line, at);
  }
  return undefined;
}

/** libpq's pwdfMatchesString: where the next field starts when the one at `at` is `*` or equals `value`; -1 otherwise. */
function matchField(line: string, at: number, value: string): number {
  if (line[at] === '*' && line[at + 1] === ':') return at + 2;
  let i = at;
  let matched = 0;
  while (i < line.length) {
    let escaped = false;
    if (line[i] === '\\') {
      i++;
      escaped = true;
    }
    if (line[i] === ':' && !escaped && matched === value.length) return i + 1;
    if (matched === value.length || line[i] !== value[matched]) return -1;
    i++;
    matched++;
  }
  return -1;
}

/** The password field: up to an unescaped `:` or the end of the line, with its escapes removed. */
function unescapePassword(line: string, at: number): string {
  let password = '';
  for (let i = at; i < line.length && line[i] !== ':'; i++) {
    if (line[i] === '\\' && i + 1 < line.length) i++;
    password += line[i];
  }
  return password;
}
