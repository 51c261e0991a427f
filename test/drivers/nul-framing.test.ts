import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DbError } from '../../src/drivers/errors.js';
import { createDriver } from '../helpers/drivers.js';
import type { ServerTarget } from '../../src/config/target.js';
import { runCli } from '../helpers/cli.js';
import { connectFresh } from '../helpers/databases.js';

/** Fails the test instead of letting a request that never gets its answer hang it. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const refusedAsBadRequest = (error: unknown): boolean => {
  assert.ok(error instanceof DbError, String(error));
  assert.equal(error.errorClass, 'bad_request');
  assert.match(error.message, /holds a NUL byte \(at character \d+ of \d+\), which its protocol cannot carry/);
  return true;
};

test('PostgreSQL: a statement holding a NUL is refused before it is sent, and the connection stays usable', async (t) => {
  const fresh = await connectFresh(t, 'postgres');
  if (!fresh) return;
  const { conn } = fresh;
  // Simple protocol (no parameters), a prepared statement, and the extended protocol with parameters.
  await within(5_000, 'simple query', assert.rejects(conn.query("SELECT 'a\0b'"), refusedAsBadRequest));
  await within(5_000, 'prepare', assert.rejects(conn.prepare('SELECT 1 \0'), refusedAsBadRequest));
  await within(5_000, 'extended query', assert.rejects(conn.query('SELECT ?::int + 1 \0', [1]), refusedAsBadRequest));
  // Nothing half-sent: the same connection answers the next statements, in step.
  assert.deepEqual(await within(5_000, 'the next query', conn.query('SELECT 41 + 1')), [[42]]);
  const statement = await conn.prepare('SELECT ?::int * 2');
  assert.deepEqual(await within(5_000, 'the next prepared statement', statement.all([21])), [[42]]);
});

test('PostgreSQL and MariaDB: a user name holding a NUL is refused at connect, at once', async (t) => {
  for (const dbms of ['postgres', 'mariadb'] as const) {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const target = { ...(fresh.db.target as ServerTarget), user: 'hea\0droom' };
    await within(10_000, `${dbms} connect`, assert.rejects(createDriver(target).connect(), refusedAsBadRequest));
  }
});

test('MariaDB: query text is length-framed, so a NUL inside a literal reaches the server whole', async (t) => {
  const fresh = await connectFresh(t, 'mariadb');
  if (!fresh) return;
  const rows = await within(5_000, 'query', fresh.conn.query("SELECT HEX('a\0b')"));
  assert.deepEqual(rows, [['610062']]);
});

test('a script holding a NUL byte is refused at load: one line naming file, line and column, exit 2, nothing opened', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-nul-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'nul.sql');
  writeFileSync(script, "SELECT 1;\nSELECT 'a\0b';\n");
  const db = path.join(dir, 'bench.db');
  const run = await runCli(['run', 'tpcb', '-f', script, '-c', '1', '-T', '1', '--observe=false', '--db', `sqlite:${db}`, '-o', path.join(dir, 'r.json')]);
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  assert.match(run.stderr, new RegExp(`^headroom: ${script.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2:10: the script holds a NUL byte \\(remove it`));
  assert.equal(existsSync(db), false, 'no database was opened');
});
