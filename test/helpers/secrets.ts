import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { ServerTarget } from '../../src/config/target.js';
import { createDriver } from './drivers.js';
import { freshDatabase } from './databases.js';

/**
 * A password no output could hold by chance: five random pieces joined by "@", ":", "/" and "%",
 * the characters a URL must encode or that split it. A leak of any piece (the tail after an "@"
 * a redaction took for the end of the userinfo) is as much a leak as the whole.
 */
export interface Secret {
  password: string;
  /** Every form whose presence in an output is a leak: the password, its %-encoded form, each piece. */
  forms: string[];
}

export function makeSecret(): Secret {
  // A letter first and last: never a %-escape's hex digits after "%", nor a port's digits after ":".
  const piece = (): string => `Q${randomBytes(6).toString('hex')}z`;
  const pieces = [piece(), piece(), piece(), piece(), piece()];
  const password = `${pieces[0]}@${pieces[1]}:${pieces[2]}/${pieces[3]}%${pieces[4]}`;
  return { password, forms: [password, encodeURIComponent(password), ...pieces] };
}

/** The password for a URL's userinfo with "@" and ":" left raw (headroom reads the last "@" as the end). */
export function halfEncoded(password: string): string {
  return password.replace(/%/g, '%25').replace(/\//g, '%2F');
}

/** A fresh database and a login of its own with `password` on it (dropped after the test); undefined when the server is not there (skipped or failed). */
export async function loginWithPassword(
  t: TestContext,
  dbms: 'postgres' | 'mariadb',
  password: string,
): Promise<{ target: ServerTarget; user: string } | undefined> {
  const db = await freshDatabase(t, dbms);
  if (!db) return undefined;
  const target = db.target as ServerTarget;
  const user = `headroom_secret_${randomBytes(4).toString('hex')}`;
  const admin = await createDriver(db.admin).connect();
  try {
    if (dbms === 'postgres') {
      await admin.query(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
      await admin.query(`ALTER DATABASE ${target.database} OWNER TO ${user}`);
    } else {
      await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
      await admin.query(`GRANT ALL ON ${target.database}.* TO '${user}'@'%'`);
    }
  } finally {
    await admin.close();
  }
  // The database first (with everything the role owns), then the login.
  t.after(async () => {
    await db.dispose();
    const cleanup = await createDriver(db.admin).connect();
    try {
      await cleanup.query(dbms === 'postgres' ? `DROP ROLE IF EXISTS ${user}` : `DROP USER IF EXISTS '${user}'@'%'`);
    } finally {
      await cleanup.close();
    }
  });
  return { target: { ...target, user, password }, user };
}

/** Every file under `folders`, recursively, with its text. */
function filesUnder(folders: readonly string[]): [file: string, text: string][] {
  const found: [string, string][] = [];
  const walk = (folder: string): void => {
    if (!existsSync(folder)) return;
    for (const name of readdirSync(folder)) {
      const full = path.join(folder, name);
      if (statSync(full).isDirectory()) walk(full);
      else found.push([full, readFileSync(full, 'latin1')]);
    }
  };
  folders.forEach(walk);
  return found;
}

/**
 * No form of the secrets in any output or in any file under the folders. `outputs` are named
 * texts (a command's stdout and stderr); `minFiles` guards against a check of empty folders.
 */
export function assertNothingSecret(
  secrets: readonly string[],
  outputs: readonly [name: string, text: string][],
  folders: readonly string[],
  minFiles: number,
): void {
  const files = filesUnder(folders);
  assert.ok(files.length >= minFiles, `at least ${minFiles} files written under ${folders.join(', ')}, found ${files.length}`);
  const leaks: string[] = [];
  for (const [name, text] of [...outputs, ...files]) {
    for (const form of secrets) {
      const at = text.indexOf(form);
      if (at >= 0) leaks.push(`${name}: "${form}" in ...${text.slice(Math.max(0, at - 60), at + form.length + 20).replace(/\s+/g, ' ')}...`);
    }
  }
  const where = [...new Set(leaks.map((leak) => leak.slice(0, leak.indexOf(': "'))))];
  assert.equal(leaks.length, 0, `${leaks.length} leaks of the secret, in ${where.join(', ')}; the first ones:\n${leaks.slice(0, 12).join('\n')}`);
}
