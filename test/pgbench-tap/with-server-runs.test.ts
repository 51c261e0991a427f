import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { EMPTY, tapCases, tapServer, type TapCase } from './harness.js';

/**
 * 001_pgbench_with_server.pl, the cases that initialise and run the built-ins and small custom
 * scripts, against a database of this file's own on the test server. The server-log checks of
 * the parameter-logging cases are left out (they read the server's log file, not pgbench's
 * output); their pgbench output is checked, with the logging settings given per session through
 * PGOPTIONS instead of the TAP test's postgresql.conf.
 */
/**
 * The tablespace the TAP test creates for --tablespace and --index-tablespace: a folder of the
 * server's user (the server runs on this machine, as the TAP test's node does).
 */
const TABLESPACE = `regress_pgbench_tap_1_ts_${process.pid}`;
const tablespaceDir = mkdtempSync(path.join(tmpdir(), 'headroom-pgbench-ts-'));
// PostgreSQL takes a folder its own user owns; as root, give it to that user.
if (process.getuid?.() === 0) {
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
  chownSync(tablespaceDir, id('-u'), id('-g'));
}

const labels = Array.from({ length: 1000 }, (_, i) => `'l${i + 1}'`).join(',');
const SELECT_ONLY_VARIANT =
  '-- select only variant\n\\set aid random(1, :scale * 100000)\nBEGIN;\n' +
  'SELECT abalance::INTEGER AS balance\n  FROM pgbench_accounts\n  WHERE aid=:aid;\nCOMMIT;\n';
const JSON_PARAMS =
  "select '{ invalid ' as value \\gset\n" +
  "select $$'Valame Dios!' dijo Sancho; 'no le dije yo a vuestra merced que mirase bien lo que hacia?'$$ as long \\gset\n" +
  'select column1::jsonb from (values (:value), (:long)) as q;\n';
const DIVISION_PARAMS = "select '1' as one \\gset\nSELECT 1 / (random() / 2)::int, :one::int, :two::int;\n";

const CASES: TapCase[] = [
  {
    name: 'concurrent OID generation',
    args: '--no-vacuum --client=5 --protocol=prepared --transactions=25',
    status: 0,
    stdout: [/processed: 125\/125/],
    stderr: [EMPTY],
    files: { '001_pgbench_concurrent_insert': `CREATE TYPE pg_temp.e AS ENUM (${labels}); DROP TYPE pg_temp.e;` },
  },
  {
    name: 'no such database',
    args: 'no-such-database',
    status: 1,
    stdout: [EMPTY],
    stderr: [/connection to server .* failed/, /FATAL: {2}database "no-such-database" does not exist/],
  },
  { name: 'run without init', args: '-S -t 1', status: 1, stdout: [], stderr: [/Perhaps you need to do initialization/] },
  {
    name: 'scale 1 initialization',
    args: '-i',
    status: 0,
    stdout: [EMPTY],
    stderr: [/creating tables/, /vacuuming/, /creating primary keys/, /done in \d+\.\d\d s /],
  },
  {
    name: 'initialization with all options',
    args: '--initialize --init-steps=dtpvg --scale=1 --unlogged-tables --fillfactor=98 --foreign-keys --quiet --partitions=2 --partition-method=hash',
    status: 0,
    stdout: [EMPTY],
    stderr: [
      /dropping old tables/,
      /creating tables/,
      /creating 2 partitions/,
      /vacuuming/,
      /creating primary keys/,
      /creating foreign keys/,
      /done in \d+\.\d\d s /,
    ],
  },
  {
    name: 'initialization with --tablespace and --index-tablespace',
    args: `--initialize --scale=1 --tablespace=${TABLESPACE} --index-tablespace=${TABLESPACE}`,
    sql: `CREATE TABLESPACE ${TABLESPACE} LOCATION '${tablespaceDir}'`,
    status: 0,
    stdout: [EMPTY],
    stderr: [/creating tables/, /done in \d+\.\d\d s /],
  },
  {
    name: 'the tables and the primary keys are in the tablespaces given',
    // Not a case of the TAP test: what the case above placed, as the catalog tells it.
    args: '-n -t 1',
    status: 0,
    stdout: [/processed: 1\/1/],
    // Seven relations in it (four tables, three primary keys' indexes), none left in the default one.
    stderr: [/command=3.: int 70\b/],
    files: {
      placed:
        `SELECT count(*) AS placed FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace WHERE t.spcname = '${TABLESPACE}' ` +
        "AND c.relname IN ('pgbench_accounts', 'pgbench_branches', 'pgbench_tellers', 'pgbench_history', 'pgbench_accounts_pkey', 'pgbench_branches_pkey', 'pgbench_tellers_pkey') \\gset\n" +
        "SELECT count(*) AS other FROM pg_class WHERE relname LIKE 'pgbench%' AND reltablespace = 0 \\gset\n" +
        '\\set n debug(:placed * 10 + :other)\n',
    },
  },
  {
    name: '--init-steps with legacy step options',
    args: '--initialize --init-steps=dtpvGvv --no-vacuum --foreign-keys --unlogged-tables --partitions=3',
    status: 0,
    stdout: [EMPTY],
    stderr: [
      /dropping old tables/,
      /creating tables/,
      /creating 3 partitions/,
      /creating primary keys/,
      /generating data \(server-side\)/,
      /creating foreign keys/,
      /done in \d+\.\d\d s /,
    ],
  },
  {
    name: 'tpcb-like',
    args: '--transactions=5 -Dfoo=bla --client=2 --protocol=simple --builtin=t -n -v -n',
    status: 0,
    stdout: [/builtin: TPC-B/, /clients: 2\b/, /processed: 10\/10/, /mode: simple/, /maximum number of tries: 1/],
    stderr: [EMPTY],
  },
  {
    name: 'tpcb-like with --connect',
    args: '--transactions=5 --client=2 --builtin=t --connect -n',
    status: 0,
    stdout: [/processed: 10\/10/],
    stderr: [EMPTY],
  },
  {
    name: 'simple update',
    args: '--transactions=20 --client=5 -M extended --builtin=si --no-vacuum -s 1',
    status: 0,
    stdout: [/builtin: simple update/, /clients: 5\b/, /threads: 1\b/, /processed: 100\/100/, /mode: extended/],
    stderr: [/scale option ignored/],
  },
  {
    name: 'select only',
    args: '-t 100 -c 7 -M prepared -b se',
    status: 0,
    stdout: [/builtin: select only/, /clients: 7\b/, /threads: 1\b/, /processed: 700\/700/, /mode: prepared/],
    stderr: [/vacuum/],
  },
  {
    name: 'select only with --debug',
    args: '-t 10 -c 2 -b se --debug',
    status: 0,
    stdout: [/processed: 20\/20/],
    stderr: [/vacuum/, /client 0/, /client 1/, /sending/, /receiving/, /executing/],
  },
  {
    name: 'custom scripts',
    args: '-t 100 -c 1 -j 2 -M prepared -n',
    status: 0,
    stdout: [
      /type: multiple scripts/,
      /mode: prepared/,
      /script 1: .*\/001_pgbench_custom_script_1/,
      /weight: 2/,
      /script 2: .*\/001_pgbench_custom_script_2/,
      /weight: 1/,
      /processed: 100\/100/,
    ],
    stderr: [EMPTY],
    files: {
      '001_pgbench_custom_script_1@1':
        '-- select only\n\\set aid random(1, :scale * 100000)\nSELECT abalance::INTEGER AS balance\n' + '  FROM pgbench_accounts\n  WHERE aid=:aid;\n',
      '001_pgbench_custom_script_2@2':
        '-- special variables\nBEGIN;\n\\set foo 1\n-- cast are needed for typing under -M prepared\n' +
        'SELECT :foo::INT + :scale::INT * :client_id::INT AS bla;\nCOMMIT;\n',
    },
  },
  {
    name: 'custom script, simple',
    args: '-n -t 10 -c 1 -M simple',
    status: 0,
    stdout: [/type: .*\/001_pgbench_custom_script_3/, /processed: 10\/10/, /mode: simple/],
    stderr: [EMPTY],
    files: { '001_pgbench_custom_script_3': SELECT_ONLY_VARIANT },
  },
  {
    name: 'custom script, extended',
    args: '-n -t 10 -c 2 -M extended',
    status: 0,
    stdout: [/type: .*\/001_pgbench_custom_script_4/, /processed: 20\/20/, /mode: extended/],
    stderr: [EMPTY],
    files: { '001_pgbench_custom_script_4': SELECT_ONLY_VARIANT },
  },
  {
    name: 'parameters not logged on error',
    args: '-n -t1 -c1 -M prepared',
    status: 2,
    stdout: [],
    stderr: [/ERROR: {2}invalid input syntax for type json/, /(?!unnamed portal with parameters)/],
    files: { '001_param_1': JSON_PARAMS },
    env: { PGOPTIONS: '-c log_parameter_max_length_on_error=0' },
  },
  {
    name: 'parameters truncated on error',
    args: '-n -t1 -c1 -M prepared',
    status: 2,
    stdout: [],
    stderr: [/ERROR: {2}division by zero/, /CONTEXT: {2}unnamed portal with parameters: \$1 = '1', \$2 = NULL/],
    files: { '001_param_2': DIVISION_PARAMS },
    env: { PGOPTIONS: '-c log_parameter_max_length_on_error=64' },
  },
  {
    name: 'bad parameter reported at BIND',
    args: '-n -t1 -c1 -M prepared',
    status: 2,
    stdout: [],
    stderr: [/ERROR: {2}invalid input syntax for type smallint: "1a"/, /CONTEXT: {2}unnamed portal parameter \$2 = '1a'/],
    files: { '001_param_6': "select 42 as value1, '1a' as value2 \\gset\nselect :value1::smallint, :value2::smallint;\n" },
    // The TAP test runs it with the server's settings of the case before (parameters logged whole on error).
    env: { PGOPTIONS: '-c log_parameter_max_length_on_error=-1' },
  },
  {
    name: 'throttling',
    args: '-t 100 -S --rate=100000 --latency-limit=1000000 -c 2 -n -r',
    status: 0,
    stdout: [/processed: 200\/200/, /builtin: select only/],
    stderr: [EMPTY],
  },
  {
    name: 'late throttling',
    args: '-t 10 --rate=100000 --latency-limit=1 -n -r',
    status: 0,
    stdout: [/processed: [01]\/10/, /type: .*\/001_pgbench_sleep/, /above the 1.0 ms latency limit: [01]\//],
    stderr: [EMPTY],
    files: { '001_pgbench_sleep': '\\sleep 2ms' },
  },
  {
    name: 'logs with sampling',
    args: '-n -S -t 50 -c 2 --log --sampling-rate=0.5',
    status: 0,
    stdout: [/select only/, /processed: 100\/100/],
    stderr: [EMPTY],
    after: ['--log-prefix={dir}/001_pgbench_log_2'],
  },
  {
    name: 'incomplete transaction block',
    args: '--no-vacuum',
    status: 2,
    stdout: [/processed: 1\/10/],
    stderr: [/client 0 aborted: end of script reached without completing the last transaction/],
    files: { '001_pgbench_incomplete_transaction_block': 'BEGIN;SELECT 1;' },
  },
];

const server = tapServer(true);
after(() => {
  // The cases after it create the tables anew in the default tablespace, so it is empty by now; the test database is gone.
  if (server.db)
    execFileSync('psql', ['-X', '-q', '-c', `DROP TABLESPACE IF EXISTS ${TABLESPACE}`], { env: { ...server.env, PGDATABASE: 'postgres' }, stdio: 'pipe' });
  rmSync(tablespaceDir, { recursive: true, force: true });
});
tapCases(server, '001_pgbench_with_server (runs)', CASES);
