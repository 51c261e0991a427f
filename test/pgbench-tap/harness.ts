import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, type CliRun } from '../helpers/cli.js';
import { freshDatabase, type TestDatabase } from '../helpers/databases.js';
import type { ServerTarget } from '../../src/config/target.js';

/**
 * The cases of PostgreSQL's pgbench TAP tests (src/bin/pgbench/t/001_pgbench_with_server.pl and
 * 002_pgbench_no_server.pl), run against `headroom pgbench`: a case passes when the exit status
 * is the one pgbench 15 gives and every stdout and stderr pattern matches, as the TAP test's
 * command_checks_all checks them. A case headroom does not pass yet carries `differs`, the reason:
 * it still runs, as a todo, so it shows as not passing and turns up when it starts passing.
 */
export interface TapCase {
  name: string;
  /** pgbench's options, split on white space as the TAP helper splits them. */
  args: string;
  status: number;
  stdout: RegExp[];
  stderr: RegExp[];
  /** Script files by name (NAME@W gives -f FILE@W), passed in name order after the options. */
  files?: Record<string, string>;
  /** Arguments after the files (the TAP helper's trailing @args); {dir} is the case's own folder. */
  after?: string[];
  /** Variables for this case (e.g. PGOPTIONS). */
  env?: Record<string, string>;
  /** SQL run through psql before the case (the TAP test's safe_psql between cases). */
  sql?: string;
  /** Why headroom does not pass this case yet. */
  differs?: string;
}

/** Perl's `$` also matches before a final newline: /^$/ on output accepts "" and "\n". */
export const EMPTY = /^\n?$/;

export interface TapServer {
  db: TestDatabase | undefined;
  env: NodeJS.ProcessEnv;
  dir: string;
}

/** The same command through headroom pgbench and through pgbench 15 itself, on a tap server's database. */
export interface SideBySide {
  /** pgbench itself with these arguments. */
  pgbench(args: readonly string[]): CliRun;
  /** Both tools, the same arguments (undefined, the test skipped, without a database). */
  both(t: TestContext, args: readonly string[]): Promise<{ ours: CliRun; theirs: CliRun } | undefined>;
  /** A script file of that name and text in the server's folder; its path. */
  script(name: string, text: string): string;
}

export function sideBySide(server: TapServer): SideBySide {
  const pgbench = (args: readonly string[]): CliRun => {
    const run = spawnSync('pgbench', args, { env: server.env, encoding: 'utf8' });
    if (run.error) throw new Error(`pgbench 15 is needed to compare with (${run.error.message}); Debian: apt-get install postgresql-client-15`);
    return { code: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
  };
  return {
    pgbench,
    async both(t, args) {
      if (!server.db) return void t.skip('no test database');
      const ours = await runCli(['pgbench', ...args], { env: server.env });
      return { ours, theirs: pgbench(args) };
    },
    script(name, text) {
      const file = path.join(server.dir, name);
      writeFileSync(file, text);
      return file;
    },
  };
}

/** A database of the file's own on the test server, reached through PG* as the TAP test's node is. */
export function tapServer(withServer: boolean): TapServer {
  const server: TapServer = { db: undefined, env: { ...process.env, DATABASE_URL: undefined }, dir: mkdtempSync(path.join(tmpdir(), 'headroom-pgbench-tap-')) };
  before(async (t) => {
    if (!withServer) return;
    server.db = await freshDatabase(t as unknown as TestContext, 'postgres');
    if (!server.db) return;
    const target = server.db.target as ServerTarget;
    Object.assign(server.env, { PGHOST: target.host, PGPORT: String(target.port), PGUSER: target.user, PGDATABASE: target.database });
  });
  after(async () => {
    rmSync(server.dir, { recursive: true, force: true });
    await server.db?.dispose();
  });
  return server;
}

export async function runTapCase(server: TapServer, c: TapCase): Promise<CliRun> {
  if (c.sql !== undefined) execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-c', c.sql], { env: server.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const files: string[] = [];
  for (const name of Object.keys(c.files ?? {}).sort()) {
    const file = path.join(server.dir, name.replace(/@\d+$/, ''));
    writeFileSync(file, c.files![name]!);
    files.push('-f', path.join(server.dir, name));
  }
  const args = ['pgbench', ...c.args.split(/\s+/).filter((a) => a !== ''), ...files, ...(c.after ?? []).map((a) => a.replace('{dir}', server.dir))];
  return runCli(args, { env: { ...server.env, ...c.env } });
}

/** The checks of command_checks_all: the status, then each pattern; the first that fails is the message. */
export function checkTapCase(c: TapCase, run: CliRun): void {
  const seen = `\n--- stdout:\n${run.stdout}\n--- stderr:\n${run.stderr}`;
  assert.equal(run.code, c.status, `exit status ${run.code}, pgbench gives ${c.status}${seen}`);
  for (const re of c.stdout) assert.match(run.stdout, re, `stdout does not match ${re}${seen}`);
  for (const re of c.stderr) assert.match(run.stderr, re, `stderr does not match ${re}${seen}`);
}

/** One test per case, in order (several share tables), and a closing count of the cases that pass. */
export function tapCases(server: TapServer, file: string, cases: readonly TapCase[], withServer = true): void {
  let passed = 0;
  for (const c of cases) {
    test(c.name, { todo: c.differs }, async (t) => {
      if (withServer && !server.db) return void t.skip('no test database');
      checkTapCase(c, await runTapCase(server, c));
      passed++;
    });
  }
  after(() => process.stdout.write(`# ${file}: ${passed} of ${cases.length} ported cases pass\n`));
}
