#!/usr/bin/env node
// Replaying a recorded load, pgreplay and headroom replay side by side: pgbench -c 4 -T 30 runs on a
// PostgreSQL database with every statement logged (log_statement=all for that database only,
// log_line_prefix '%m|%u|%d|%c|' as pgreplay reads it, put back afterwards), the log's lines of that
// run are cut out, and each tool replays them at each speed into its own fresh copy of the database
// as it was before pgbench ran (CREATE DATABASE ... TEMPLATE). Printed per tool and speed: statements
// executed, errors, how late statements started (pgreplay's "maximal lag behind schedule"; headroom's
// schedule lag p99 and max), client CPU per statement (bash's `times` of the whole process for both)
// and wall time. pgreplay tells no count of failed statements: its history rows against the recording's
// show the transactions that did not commit (lock timeouts among them).
//
//   node bench/replay-vs-pgreplay.mjs [--db postgres://postgres@127.0.0.1:5432/postgres] [--time 30]
//        [--clients 4] [--speeds 1,2] [--log /var/log/postgresql/postgresql-15-main.log]
//        [--paces statements,transactions] [--keep CAPTURE.json]
//
// --paces: headroom replays once per pace given (--pace statements is pgreplay's timing: every
// statement at its recorded start; transactions: each transaction's first, the rest following).
//
// The capture for headroom is made by headroom capture from the cut-out log, or, where that fails,
// by this script's own few lines (readStderrLog), which it used before headroom capture was there. pgreplay connects to
// the database the log names, so its copy of the log names its own copy.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync, closeSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { timed, printTimingNote } from './timed.mjs';
import { statementKind } from '../dist/src/workloads/replay/statement-kind.js';
import { summarize } from '../dist/src/workloads/replay/capture-summary.js';
import { HEADROOM_CLI } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    time: { type: 'string', default: '30' },
    clients: { type: 'string', default: '4' },
    speeds: { type: 'string', default: '1,2' },
    log: { type: 'string', default: '/var/log/postgresql/postgresql-15-main.log' },
    tools: { type: 'string', default: 'pgreplay,headroom' },
    'pgreplay-lock-timeout': { type: 'string', default: '1s' },
    keep: { type: 'string' },
    paces: { type: 'string', default: 'statements' },
  },
});
const admin = new URL(values.db);
const conn = { host: admin.hostname, port: admin.port || '5432', user: decodeURIComponent(admin.username || 'postgres') };
const psql = (db, sql) =>
  execFileSync('psql', ['-h', conn.host, '-p', conn.port, '-U', conn.user, '-d', db, '-v', 'ON_ERROR_STOP=1', '-Atqc', sql], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
const maintenance = admin.pathname.slice(1) || 'postgres';
const SOURCE = 'replay_bench_src';
const TEMPLATE = 'replay_bench_tpl';
const PREFIX = '%m|%u|%d|%c|';
const work = mkdtempSync(path.join(tmpdir(), 'replay-bench-'));
const dbUrl = (db) => Object.assign(new URL(values.db), { pathname: `/${db}` }).toString();

// Put back as it was: ALTER SYSTEM's value where the prefix came from postgresql.auto.conf, else none.
const [oldPrefix, prefixFile] = psql(maintenance, "SELECT setting || '|@|' || coalesce(sourcefile, '') FROM pg_settings WHERE name = 'log_line_prefix'").split(
  '|@|',
);
let cleaned = false;
const cleanup = () => {
  if (cleaned) return;
  cleaned = true;
  psql(
    maintenance,
    prefixFile.endsWith('postgresql.auto.conf')
      ? `ALTER SYSTEM SET log_line_prefix = '${oldPrefix.replace(/'/g, "''")}'`
      : 'ALTER SYSTEM RESET log_line_prefix',
  );
  psql(maintenance, 'SELECT pg_reload_conf()');
  for (const db of [SOURCE, TEMPLATE, 'replay_bench_pgreplay', 'replay_bench_headroom']) psql(maintenance, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  rmSync(work, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => (cleanup(), process.exit(130)));
try {
  printTimingNote();
  for (const db of [SOURCE, TEMPLATE]) psql(maintenance, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  psql(maintenance, `CREATE DATABASE ${SOURCE}`);
  execFileSync('pgbench', ['-i', '-q', '-s', '1', '-h', conn.host, '-p', conn.port, '-U', conn.user, SOURCE], { stdio: 'ignore' });
  psql(maintenance, `CREATE DATABASE ${TEMPLATE} TEMPLATE ${SOURCE}`);
  // Only this database's sessions log their statements; the prefix is the server's, put back in finally.
  psql(maintenance, `ALTER DATABASE ${SOURCE} SET log_statement = 'all'`);
  psql(maintenance, `ALTER SYSTEM SET log_line_prefix = '${PREFIX}'`);
  psql(maintenance, 'SELECT pg_reload_conf()');
  execFileSync('sleep', ['0.5']);
  const from = statSync(values.log).size;
  execFileSync('pgbench', ['-c', values.clients, '-T', values.time, '-h', conn.host, '-p', conn.port, '-U', conn.user, SOURCE], { stdio: 'ignore' });
  execFileSync('sleep', ['0.5']);
  const lines = readFrom(values.log, from)
    .split('\n')
    .filter((l) => l.split('|')[2] === SOURCE || /^\s/.test(l));
  psql(maintenance, `ALTER DATABASE ${SOURCE} RESET ALL`);
  // headroom capture reads the log where it is built; the bench's own few lines read it otherwise.
  const captureFile = path.join(work, 'capture.json');
  const sourceLog = path.join(work, 'source.log');
  writeFileSync(sourceLog, lines.join('\n') + '\n');
  let capture;
  try {
    execFileSync(process.execPath, [HEADROOM_CLI, 'capture', sourceLog, '-o', captureFile], { stdio: 'pipe' });
    capture = JSON.parse(readFileSync(captureFile, 'utf8'));
    console.log('capture: headroom capture');
  } catch (error) {
    const said = String(error.stderr ?? '').trim() || String(error.message);
    console.log(`capture: the bench's own log reader (headroom capture: ${said.split('\n')[0]})`);
    capture = readStderrLog(lines);
    writeFileSync(captureFile, JSON.stringify(capture));
  }
  if (values.keep) writeFileSync(values.keep, JSON.stringify(capture));
  console.log(
    `pgbench -c ${values.clients} -T ${values.time}: ${capture.summary.statements} statements in ${capture.summary.sessions} sessions over ${capture.durationS.toFixed(1)} s logged`,
  );
  // pgbench_history gets a row per committed transaction: the replay's committed work against the recording's.
  const history = (db) => psql(db, 'SELECT count(*) FROM pgbench_history');
  const recorded = history(SOURCE);
  console.log(`pgbench_history rows after the recorded run: ${recorded}`);
  const rows = [['tool', 'speed', 'statements', 'errors', 'lag', 'cpu us/stmt', 'history rows', 'wall s']];
  for (const speed of values.speeds.split(',').map(Number)) {
    if (values.tools.includes('pgreplay')) {
      const copy = `replay_bench_pgreplay`;
      psql(maintenance, `DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
      psql(maintenance, `CREATE DATABASE ${copy} TEMPLATE ${TEMPLATE}`);
      // pgreplay's own advice for a log whose replay meets locks in another order: a lock_timeout, so
      // that a statement stuck behind a lock its session's next line would release fails instead of hanging.
      if (values['pgreplay-lock-timeout'] !== '0') psql(maintenance, `ALTER DATABASE ${copy} SET lock_timeout = '${values['pgreplay-lock-timeout']}'`);
      const logFile = path.join(work, 'pgreplay.log');
      writeFileSync(logFile, lines.map((l) => l.replace(`|${SOURCE}|`, `|${copy}|`)).join('\n') + '\n');
      const started = performance.now();
      // pgreplay sends the log's statements in its order from one thread: a statement waiting for a
      // lock that a later line of the log releases can hold it for ever, so it gets a time limit.
      const limit = Math.ceil((3 * capture.durationS) / speed + 30);
      const run = await timed('timeout', [String(limit), 'pgreplay', '-h', conn.host, '-p', conn.port, '-s', String(speed), logFile]).catch((error) => ({
        output: '',
        stderr: String(error.message),
        cpuSeconds: NaN,
      }));
      const wall = (performance.now() - started) / 1000;
      if (Number.isNaN(run.cpuSeconds)) {
        rows.push(['pgreplay', `${speed}x`, `did not finish: stopped after ${limit} s`, '-', '-', '-', history(copy), wall.toFixed(2)]);
      } else {
        const text = run.output + run.stderr;
        const executed = Number(/SQL statements executed:\s*(\d+)/.exec(text)?.[1] ?? NaN);
        const errors = Number(/(\d+) statements? (?:failed|had errors)|statements that failed:\s*(\d+)/i.exec(text)?.slice(1).find(Boolean) ?? NaN);
        const lag = /Maxim(?:al|um) lag behind schedule:\s*([\d.]+)\s*seconds/.exec(text)?.[1];
        rows.push([
          'pgreplay',
          `${speed}x`,
          String(executed),
          Number.isNaN(errors) ? 'not told' : String(errors),
          lag ? `max ${(Number(lag) * 1000).toFixed(1)} ms` : '?',
          ((run.cpuSeconds * 1e6) / executed).toFixed(1),
          history(copy),
          wall.toFixed(2),
        ]);
        if (!executed) console.log(text);
        else
          console.log(
            `pgreplay ${speed}x: ${text
              .split('\n')
              .filter((l) => /:/.test(l) && !/^Warning/.test(l))
              .map((l) => l.trim())
              .join('; ')}`,
          );
      }
      psql(maintenance, `DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
    }
    for (const pace of values.tools.includes('headroom') ? values.paces.split(',') : []) {
      const copy = `replay_bench_headroom`;
      psql(maintenance, `DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
      psql(maintenance, `CREATE DATABASE ${copy} TEMPLATE ${TEMPLATE}`);
      const out = path.join(work, `headroom-${speed}-${pace}.json`);
      const started = performance.now();
      const run = await timed(process.execPath, [
        HEADROOM_CLI,
        'replay',
        captureFile,
        '--db',
        dbUrl(copy),
        '--speed',
        String(speed),
        '--pace',
        pace,
        '-P',
        '0',
        '--observe=false',
        '-o',
        out,
      ]);
      const wall = (performance.now() - started) / 1000;
      const result = JSON.parse(readFileSync(out, 'utf8'));
      const r = result.replay;
      const lag = result.summary.scheduleLagMs;
      const errors = r.statements.failed + r.recordedErrors.again;
      rows.push([
        `headroom --pace ${pace}`,
        `${speed}x`,
        String(r.statements.executed),
        String(errors),
        `p99 ${lag.p99.toFixed(1)} max ${lag.max.toFixed(1)} ms`,
        ((run.cpuSeconds * 1e6) / r.statements.executed).toFixed(1),
        history(copy),
        wall.toFixed(2),
      ]);
      psql(maintenance, `DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) console.log(r.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
} finally {
  cleanup();
}

function readFrom(file, offset) {
  const size = statSync(file).size;
  const buffer = Buffer.alloc(size - offset);
  const fd = openSync(file, 'r');
  readSync(fd, buffer, 0, buffer.length, offset);
  closeSync(fd);
  return buffer.toString('utf8');
}

/** The few lines of a stderr log this bench needs: `statement:` lines per %c session, continuation lines, ERROR lines marking the statement before. */
function readStderrLog(lines) {
  const sessions = new Map();
  let last;
  let first;
  for (const [n, line] of lines.entries()) {
    if (/^\s/.test(line)) {
      if (last) last.sql += `\n${line.replace(/^\t/, '')}`;
      continue;
    }
    const [time, user, database, session, ...rest] = line.split('|');
    const message = rest.join('|');
    const at = Date.parse(time.replace(' UTC', 'Z').replace(' ', 'T'));
    const statement = /^LOG:  statement: ([\s\S]*)$/.exec(message);
    if (statement) {
      first ??= at;
      last = { atS: (at - first) / 1000, sql: statement[1], kind: 'other', from: `log:${n + 1}` };
      if (!sessions.has(session)) sessions.set(session, { id: session, user, database, startS: last.atS, statements: [] });
      sessions.get(session).statements.push(last);
    } else if (/^ERROR:/.test(message) && last) {
      last.error = message.replace(/^ERROR:\s*/, '');
      last = undefined;
    } else last = undefined;
  }
  const list = [...sessions.values()];
  for (const s of list) for (const st of s.statements) st.kind = statementKind(st.sql);
  // A loop, not Math.max(...all): a long capture has more statements than a call has room for arguments.
  let durationS = 0;
  for (const session of list) for (const st of session.statements) durationS = Math.max(durationS, st.atS);
  return {
    format: 'headroom-capture',
    version: 1,
    source: { dbms: 'postgres', kind: 'stderr', files: [values.log], capturedAt: new Date().toISOString() },
    startedAt: new Date(first ?? Date.now()).toISOString(),
    durationS,
    sessions: list,
    skipped: [],
    summary: summarize(list, durationS),
  };
}
