import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../helpers/cli.js';
import { compileScript } from '../../../src/workloads/pgbench-script/program.js';
import { scriptTransaction } from '../../../src/workloads/pgbench-script/script-transaction.js';

/** A statement with `n` parameters (each :variable occurrence is one, as pgbench numbers them). */
const statement = (n: number): string => `SELECT ${Array.from({ length: n }, () => ':p').join(', ')};\n`;

test('more than 255 parameters in one statement: refused for extended and prepared, as pgbench -M extended/prepared refuses', () => {
  // pgbench 15: "statement has too many arguments (maximum is 255)" under -M extended and -M prepared; -M simple runs it.
  const type = (n: number) => scriptTransaction(compileScript('s.sql', statement(n)), 1, new Map());
  assert.throws(() => type(256).checkProtocol!('prepared'), /s\.sql: statement has too many arguments \(maximum is 255\) for --protocol prepared/);
  assert.throws(() => type(256).checkProtocol!('extended'), /for --protocol extended/);
  assert.doesNotThrow(() => type(256).checkProtocol!('simple'));
  assert.doesNotThrow(() => type(255).checkProtocol!('prepared'));
});

test('the CLI refuses it before anything is loaded, with exit code 2', async (t) => {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-params-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, 'wide.sql');
  writeFileSync(file, statement(256));
  const run = await runCli(['run', 'tpcb', '--db', `sqlite:${path.join(folder, 'x.db')}`, '-f', file, '-D', 'p=1', '-t', '1', '-P', '0', '--observe=false']);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /^headroom: \S*\/wide\.sql: statement has too many arguments \(maximum is 255\) for --protocol prepared: SELECT :p/);
  assert.equal(existsSync(path.join(folder, 'x.db')), false, 'refused before the database is opened');
});

test('\\; is refused under extended and prepared (one parsed statement is one query), as pgbench can send it only with -M simple', () => {
  const type = scriptTransaction(compileScript('c.sql', 'SELECT 1 AS a \\; SELECT 2 AS b \\aset\n'), 1, new Map());
  assert.throws(() => type.checkProtocol!('extended'), /c\.sql: "SELECT 1 AS a ; SELECT 2 AS b" joins queries with \\;, which only --protocol simple sends/);
  assert.throws(() => type.checkProtocol!('prepared'), /only --protocol simple sends/);
  assert.doesNotThrow(() => type.checkProtocol!('simple'));
});
