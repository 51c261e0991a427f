import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServerTarget } from '../../src/config/target.js';
import { runCli, type CliRun } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';
import { assertNothingSecret, halfEncoded, loginWithPassword, makeSecret } from '../helpers/secrets.js';

/**
 * A password given to headroom in any of the forms its users give one (a URL, ?password=, a
 * libpq connection string, PGPASSWORD, MYSQL_PWD, a password file, a service file) is in no
 * output: not on stdout or stderr, in no result, sweep or experiment file, report, CSV, -l log,
 * journal or state folder file, and in no error (a malformed URL, a --verbose stack).
 * PostgreSQL at 127.0.0.1 trusts local logins, so there the password flows through every path
 * without being checked; MariaDB checks it, so its runs succeed only if it arrived.
 */

interface Session {
  work: string;
  state: string;
  inputs: string;
  outputs: [string, string][];
  /** A command that must succeed; its stdout and stderr are kept for the scan. */
  ok(args: string[], env?: NodeJS.ProcessEnv): Promise<CliRun>;
  /** A command that must fail with a message matching `message`. */
  fails(args: string[], message: RegExp, env?: NodeJS.ProcessEnv): Promise<CliRun>;
}

function session(t: TestContext): Session {
  const folder = (prefix: string): string => {
    const made = mkdtempSync(path.join(tmpdir(), prefix));
    t.after(() => rmSync(made, { recursive: true, force: true }));
    return made;
  };
  const work = folder('headroom-secret-work-');
  const state = folder('headroom-secret-state-');
  // The password file and the service file hold the password by design: not scanned.
  const inputs = folder('headroom-secret-inputs-');
  const outputs: [string, string][] = [];
  const cli = async (args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> => {
    const run = await runCli(args, {
      cwd: work,
      env: { ...process.env, DATABASE_URL: undefined, PGPASSWORD: undefined, MYSQL_PWD: undefined, HEADROOM_STATE_DIR: state, ...env },
    });
    const name = `command ${outputs.length / 2 + 1} (${args[0]})`;
    outputs.push([`${name} stdout`, run.stdout], [`${name} stderr`, run.stderr]);
    return run;
  };
  return {
    work,
    state,
    inputs,
    outputs,
    async ok(args, env = {}) {
      const run = await cli(args, env);
      assert.equal(run.code, 0, `headroom ${args.slice(0, 2).join(' ')} (command ${outputs.length / 2}): ${run.stderr}`);
      return run;
    },
    async fails(args, message, env = {}) {
      const run = await cli(args, env);
      assert.notEqual(run.code, 0, `headroom ${args.slice(0, 2).join(' ')} (command ${outputs.length / 2}) should fail`);
      assert.match(run.stderr, message);
      return run;
    },
  };
}

/** A libpq connection string with the password quoted, as a psql user writes one with spaces or symbols. */
function conninfo(target: ServerTarget, password: string): string {
  return `host=${target.host} port=${target.port} user=${target.user} password='${password}' dbname=${target.database}`;
}

test('postgres: no form of a password reaches an output, a result, a report, a log, a journal or the state folder', async (t) => {
  const secret = makeSecret();
  const login = await loginWithPassword(t, 'postgres', secret.password);
  if (!login) return;
  const { target, user } = login;
  const { host, port, database } = target;
  const P = secret.password;
  const E = encodeURIComponent(P);
  const s = session(t);
  const url = `postgres://${user}:${E}@${host}:${port}/${database}`;
  const rawAt = `postgres://${user}:${halfEncoded(P)}@${host}:${port}/${database}`;
  const query = `postgres://${host}:${port}/${database}?user=${user}&password=${E}&sslmode=disable`;
  const bare = `postgres://${user}@${host}:${port}/${database}`;
  const pgpass = path.join(s.inputs, 'pgpass');
  writeFileSync(pgpass, `${host}:${port}:${database}:${user}:${P.replace(/\\/g, '\\\\').replace(/:/g, '\\:')}\n`, { mode: 0o600 });
  const services = path.join(s.inputs, 'pg_service.conf');
  writeFileSync(services, `[secret]\nhost=${host}\nport=${port}\nuser=${user}\ndbname=${database}\npassword=${P}\n`, { mode: 0o600 });

  await s.ok(['init', 'tpcb', '--db', url, '-s', '1']);
  await s.ok(['run', 'tpcb', '--db', rawAt, '-c', '2', '-T', '1', '-P', '0', '-o', 'run.json', '--log', '--journal', 'journal.log']);
  const toStdout = await s.ok(['run', 'tpcb', '--db', query, '-c', '1', '-T', '1', '-o', '-']);
  assert.equal((JSON.parse(toStdout.stdout) as { schema: string }).schema.split('/')[0], 'headroom.result');
  await s.ok(['run', 'tpcb', '--db', bare, '-t', '5'], { PGPASSWORD: P });
  await s.ok(['run', 'tpcb', '--db', `postgres://${host}:${port}/${database}?user=${user}`, '-t', '5', '-o', 'pgpass.json'], { PGPASSFILE: pgpass });
  await s.ok(['run', 'tpcb', '--db', 'postgres://?service=secret', '-t', '5', '-o', 'service.json', '--verbose'], { PGSERVICEFILE: services });
  await s.ok(['run', 'tpcb', '--db', url, '-c', '1,2', '-T', '1', '-o', 'sweep.json']);
  await s.ok(['experiment', 'growth', '--db', url, '--workload', 'tpcb', '-s', '1', '-c', '1', '-T', '1', '-o', 'growth.json']);
  await s.ok(['report', 'run.json', '-o', 'run.html', '--csv', 'run.csv', '--markdown']);
  await s.ok(['report', 'sweep.json', '-o', 'sweep.html']);
  await s.ok(['report', 'growth.json', '-o', 'growth.html']);
  await s.ok(['compare', 'run.json', 'service.json', 'pgpass.json']);

  // A connection string as --db: every verb that takes --db takes it, as psql and pgbench do.
  await s.ok(['run', 'tpcb', '--db', conninfo(target, P), '-t', '5', '-o', 'conninfo.json', '--log']);
  await s.ok(['check', 'tpcb', '--db', conninfo(target, P)]);
  await s.fails(['run', 'tpcb', '--db', `${conninfo(target, P)} colour=blue`, '-t', '5'], /^headroom: unknown parameter "colour" in the connection string/);
  await s.fails(['run', 'tpcb', '--db', `${conninfo(target, P)} left over`, '-t', '5'], /^headroom: invalid connection string/);

  await s.ok(['pgbench', '-i', '-s', '1', conninfo(target, P)]);
  await s.ok(['pgbench', '-h', host, '-p', String(port), '-U', user, '-n', '-t', '5', '-d', '-l', '--headroom-out', 'pgbench-env.json', database], {
    PGPASSWORD: P,
  });
  await s.ok(['pgbench', '-n', '-t', '5', '-r', '--headroom-out', 'pgbench-conninfo.json', conninfo(target, P)]);
  await s.ok(['pgbench', '-n', '-t', '5', '--headroom-out', 'pgbench-url.json', url]);
  await s.ok(['report', 'pgbench-conninfo.json', 'pgbench-url.json', '-o', 'pgbench.html', '--markdown']);

  await s.fails(['run', 'tpcb', '--db', `postgres://${user}:${halfEncoded(P)}@${host}:99999/${database}`], /malformed database URL/);
  await s.fails(['run', 'tpcb', '--db', `postgres://${user}:${P}@${host}:${port}/${database}`], /malformed database URL/);
  await s.fails(['run', 'tpcb', '--db', `postgres://${host}:${port}/${database}?password=${P}&sslmode`], /malformed database URL/);
  await s.fails(['run', 'tpcb', '--db', `postgress://${user}:${E}@${host}/${database}`], /cannot tell which DBMS/);
  await s.fails(['run', 'tpcb', url, '--verbose'], /takes one workload[^]*\n\s+at /);
  await s.fails(['run', 'tpcb', '--db', `postgres://${user}:${E}@${host}:${port}/headroom_no_such_database`, '--verbose'], /does not exist[^]*\n\s+at /);
  await s.fails(['pgbench', '-n', '-t', '1', `host=${host} password=${P} left over`], /invalid connection string/);
  await s.fails(['pgbench', '-n', '-t', '1', `host=${host} password='${P}`], /invalid connection string/);
  await s.fails(['pgbench', '-n', '-t', '1', database, `password=${P}`], /too many command-line arguments/);

  // Results, reports, CSV, the sweep and experiment files, -l logs, the journal: all scanned.
  assertNothingSecret(secret.forms, s.outputs, [s.work, s.state], 15);
  // What the reader needs stays: the user, host, port and database of the command line.
  const recorded = JSON.parse(readFileSync(path.join(s.work, 'run.json'), 'utf8')) as { config: { argv: string[] } };
  assert.ok(recorded.config.argv.includes(`postgres://${user}:***@${host}:${port}/${database}`), recorded.config.argv.join(' '));
  const fromConninfo = JSON.parse(readFileSync(path.join(s.work, 'conninfo.json'), 'utf8')) as { config: { argv: string[] }; target: { url: string } };
  assert.ok(fromConninfo.config.argv.includes(`host=${host} port=${port} user=${user} password=*** dbname=${database}`), fromConninfo.config.argv.join(' '));
  assert.equal(fromConninfo.target.url, `postgres://${user}@${host}:${port}/${database}`);
});

test('mariadb: no form of a password reaches an output, a result, a report, a log or a journal, and the runs logged in with it', async (t) => {
  const secret = makeSecret();
  const login = await loginWithPassword(t, 'mariadb', secret.password);
  if (!login) return;
  const { target, user } = login;
  const { host, port, database } = target;
  const P = secret.password;
  const s = session(t);
  const url = `mariadb://${user}:${encodeURIComponent(P)}@${host}:${port}/${database}`;
  const rawAt = `mysql://${user}:${halfEncoded(P)}@${host}:${port}/${database}`;
  const bare = `mariadb://${user}@${host}:${port}/${database}`;

  await s.ok(['init', 'tpcb', '--db', bare, '-s', '1'], { MYSQL_PWD: P });
  await s.ok(['run', 'tpcb', '--db', url, '-c', '2', '-T', '1', '-P', '0', '-o', 'run.json', '--log', '--journal', 'journal.log']);
  await s.ok(['run', 'tpcb', '--db', rawAt, '-c', '1', '-T', '1', '-o', '-']);
  await s.ok(['run', 'tpcb', '--db', bare, '-c', '1,2', '-T', '1', '-o', 'sweep.json'], { MYSQL_PWD: P });
  await s.ok(['report', 'run.json', '-o', 'run.html', '--csv', 'run.csv', '--markdown']);
  await s.ok(['report', 'sweep.json', '-o', 'sweep.html']);
  await s.ok(['pgbench', '-i', '-s', '1', url]);
  await s.ok(['pgbench', '-n', '-t', '5', '-d', '-l', '--headroom-out', 'pgbench.json', url]);
  await s.ok(['compare', 'run.json', 'pgbench.json']);

  await s.fails(['run', 'tpcb', '--db', `mariadb://${user}:${P}@${host}:${port}/${database}`], /malformed database URL/);
  await s.fails(
    ['run', 'tpcb', '--db', `mariadb://${user}:${halfEncoded(P)}@${host}:${port}/${database}?password=${encodeURIComponent(P)}`],
    /unknown parameter/,
  );
  await s.fails(['run', 'tpcb', '--db', `mariadb://${user}:${encodeURIComponent(P)}x@${host}:${port}/${database}`, '--verbose'], /Access denied/);

  assertNothingSecret(secret.forms, s.outputs, [s.work, s.state], 8);
});

test("firebird: SYSDBA's password in the URL reaches no output, result, report or log", async (t) => {
  const db = await freshDatabase(t, 'firebird');
  if (!db) return;
  t.after(() => db.dispose());
  const target = db.target as ServerTarget;
  const P = target.password ?? 'masterkey';
  const s = session(t);
  const url = `firebird://${target.user}:${encodeURIComponent(P)}@${target.host}:${target.port}/${target.database}`;

  await s.ok(['init', 'tpcb', '--db', url, '-s', '1']);
  await s.ok(['run', 'tpcb', '--db', url, '-c', '2', '-T', '1', '-P', '0', '--max-tries', '20', '-o', 'run.json', '--log']);
  await s.ok(['run', 'tpcb', '--db', url, '-t', '5', '--max-tries', '20', '-o', '-']);
  await s.ok(['report', 'run.json', '-o', 'run.html', '--markdown']);
  await s.ok(['pgbench', '-n', '-t', '5', '--max-tries', '20', '--headroom-out', 'pgbench.json', url]);
  await s.fails(['run', 'tpcb', '--db', `firebird://${target.user}:${encodeURIComponent(P)}@${target.host}:${target.port}`], /names no database/);

  assertNothingSecret([P, encodeURIComponent(P)], s.outputs, [s.work, s.state], 4);
});
