#!/usr/bin/env node
// API probe for the driver candidates: provokes real server errors and prints
// where each driver puts the SQLSTATE / errno, and tries each driver's bulk
// loading path (COPY FROM STDIN / LOAD DATA LOCAL INFILE / multi-row INSERT).
//
//   cd bench/driver-cpu && npm install && node probe.mjs
//
// Uses dcpu_probe* tables and a dcpu_limited role/user, dropped at the end.
// "Too many connections" on MariaDB (1040) needs a server whose
// max_connections is reached; rather than exhaust the shared server, the probe
// starts a throwaway mariadbd (max_connections=10, the minimum) on 127.0.0.1:MY_TMC_PORT
// (default 3399) in a temp dir when /usr/sbin/mariadbd exists, and stops it.
// Same connection settings (environment) as run.mjs.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const require = createRequire(import.meta.url);
const env = process.env;
const PG = {
  host: env.PGHOST || '127.0.0.1',
  port: Number(env.PGPORT || 5432),
  user: env.PGUSER || 'postgres',
  database: env.PGDATABASE || 'test',
};
const MY = {
  host: env.MYHOST || '127.0.0.1',
  port: Number(env.MYPORT || 3306),
  user: env.MYUSER || 'root',
  password: env.MYPASSWORD || '',
  database: env.MYDATABASE || 'test',
};
const BULK_ROWS = 100_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// What an error object carries: the properties that identify it.
function describe(e) {
  if (!e) return 'NO ERROR';
  const keys = ['code', 'errno', 'sqlState', 'severity', 'fatal', 'routine', 'query'];
  const o = { class: e.constructor?.name };
  for (const k of keys) if (e[k] !== undefined && typeof e[k] !== 'function') o[k] = e[k];
  o.message = String(e.message).split('\n')[0].slice(0, 110);
  o.props = Object.keys(e).join(',');
  return JSON.stringify(o);
}
const out = [];
const report = (driver, scenario, text) => {
  const line = `${driver.padEnd(10)} ${scenario.padEnd(26)} ${text}`;
  out.push(line);
  console.log(line);
};
async function catchErr(p) {
  try {
    await p;
    return null;
  } catch (e) {
    return e;
  }
}
const within = (ms, p, what) => Promise.race([p, sleep(ms).then(() => Promise.reject(new Error(`TIMEOUT after ${ms} ms: ${what}`)))]);

// ---------------------------------------------------------------------------
// PostgreSQL: one adapter per driver: open(user?) -> { q(text), pid, end, events }
// ---------------------------------------------------------------------------
const pgAdapters = {
  pg: async (user) => {
    const { Client } = (await import('pg')).default;
    return pgLike(Client, user);
  },
  'pg-native': async (user) => {
    const pg = (await import('pg')).default;
    return pgLike(pg.native.Client, user);
  },
  postgres: async (user) => {
    const postgres = (await import('postgres')).default;
    const events = [];
    const sql = postgres({ ...PG, user: user || PG.user, max: 1, onnotice: () => {} });
    await sql`SELECT 1`;
    const [{ pid }] = await sql`SELECT pg_backend_pid() AS pid`;
    return {
      q: (text) => sql.unsafe(text),
      pid,
      events,
      end: () => sql.end({ timeout: 1 }),
      raw: sql,
    };
  },
};
async function pgLike(Client, user) {
  const c = new Client({ ...PG, user: user || PG.user });
  const events = [];
  // pg Clients emit 'error' when the server drops an idle connection; without
  // a listener that is an uncaught exception.
  c.on('error', (e) => events.push(e));
  await c.connect();
  const pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  return { q: (text) => c.query(text), pid, events, end: () => c.end().catch(() => {}), raw: c };
}

async function pgProbe(name) {
  const open = pgAdapters[name];
  const admin = await open();
  await admin.q('DROP TABLE IF EXISTS dcpu_probe');
  await admin.q('CREATE TABLE dcpu_probe (id int PRIMARY KEY, v int NOT NULL)');
  await admin.q('INSERT INTO dcpu_probe VALUES (1, 0), (2, 0)');
  const a = await open();
  const b = await open();

  // 40001 serialization failure: REPEATABLE READ + concurrent update.
  await a.q('BEGIN ISOLATION LEVEL REPEATABLE READ');
  await a.q('SELECT v FROM dcpu_probe WHERE id = 1');
  await b.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 1');
  report(name, '40001 serialization', describe(await catchErr(a.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 1'))));
  await a.q('ROLLBACK');

  // 40P01 deadlock.
  await a.q('BEGIN');
  await b.q('BEGIN');
  await a.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 1');
  await b.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 2');
  const pa = catchErr(a.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 2'));
  await sleep(100);
  const pb = catchErr(b.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 1'));
  const [ea, eb] = await Promise.all([pa, pb]);
  report(name, '40P01 deadlock', describe(ea || eb));
  await a.q('ROLLBACK');
  await b.q('ROLLBACK');

  // Lock wait timeout (PostgreSQL: lock_timeout -> 55P03 lock_not_available).
  await a.q('BEGIN');
  await a.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 1');
  await b.q("SET lock_timeout = '300ms'");
  report(name, 'lock_timeout (55P03)', describe(await catchErr(b.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 1'))));
  await b.q('RESET lock_timeout');
  await a.q('ROLLBACK');

  // 53300 too many connections (role connection limit; superusers are exempt).
  const lim = await open('dcpu_limited').catch((e) => e);
  const e2 = await catchErr(open('dcpu_limited').then((c) => c.end()));
  report(name, '53300 too many conns', describe(e2));
  if (!(lim instanceof Error)) await lim.end();

  // Connection loss: the server terminates the backend, then the client queries.
  await admin.q(`SELECT pg_terminate_backend(${a.pid})`);
  await sleep(200);
  report(name, 'conn loss: async event', a.events.length ? describe(a.events[0]) : 'no error event');
  report(name, 'conn loss: next query', describe(await catchErr(within(3000, a.q('SELECT 1'), 'query on dead conn'))));
  report(name, 'conn loss: 2nd query', describe(await catchErr(within(3000, a.q('SELECT 1'), 'query on dead conn'))));
  await a.end();

  // Connection loss in the middle of a query.
  const pLong = catchErr(within(5000, b.q('SELECT pg_sleep(3)'), 'pg_sleep'));
  await sleep(200);
  await admin.q(`SELECT pg_terminate_backend(${b.pid})`);
  report(name, 'conn loss: during query', describe(await pLong));
  await b.end();

  // Bulk load.
  await admin.q('DROP TABLE IF EXISTS dcpu_probe_bulk');
  await admin.q('CREATE TABLE dcpu_probe_bulk (id int PRIMARY KEY, v int, s text)');
  const rows = () =>
    Readable.from(
      (function* () {
        for (let i = 1; i <= BULK_ROWS; i += 1000) {
          let chunk = '';
          for (let j = i; j < i + 1000 && j <= BULK_ROWS; j++) chunk += `${j}\t${j % 97}\tname ${j}\n`;
          yield chunk;
        }
      })(),
    );
  const t0 = Date.now();
  let how;
  const loader = await open();
  try {
    if (name === 'pg') {
      const { from: copyFrom } = require('pg-copy-streams');
      how = 'pg-copy-streams: client.query(copyFrom(sql)) -> pipeline(readable, it)';
      await pipeline(rows(), loader.raw.query(copyFrom('COPY dcpu_probe_bulk FROM STDIN')));
    } else if (name === 'postgres') {
      how = 'await sql`COPY ... FROM STDIN`.writable() -> pipeline(readable, it)';
      await pipeline(rows(), await loader.raw`COPY dcpu_probe_bulk FROM STDIN`.writable());
    } else if (env.PROBE_PG_NATIVE_COPY === '1') {
      // Observed with pg-native 3.9.0: libpq's PGRES_COPY_IN result is not
      // handled, pg-native loops synchronously on 'unrecognized command
      // status' errors and the process dies with a JS heap OOM. Opt-in only.
      how = "client.query('COPY ... FROM STDIN') via pg.native";
      await within(3000, loader.q('COPY dcpu_probe_bulk FROM STDIN'), 'COPY FROM STDIN');
    } else {
      report(name, 'bulk COPY FROM STDIN', 'not run: pg.native has no COPY FROM STDIN (set PROBE_PG_NATIVE_COPY=1 to see it crash)');
      how = null;
    }
    if (how === null) throw null;
    const n =
      (await admin.q('SELECT count(*)::int AS n FROM dcpu_probe_bulk')).rows?.[0]?.n ?? (await admin.q('SELECT count(*)::int AS n FROM dcpu_probe_bulk'))[0].n;
    report(name, 'bulk COPY FROM STDIN', `${how}: ${n} rows in ${Date.now() - t0} ms`);
  } catch (e) {
    if (e !== null) report(name, 'bulk COPY FROM STDIN', `${how}: FAILED ${describe(e)}`);
  }
  await within(3000, loader.end(), 'end').catch(() => {});
  await admin.q('DROP TABLE IF EXISTS dcpu_probe, dcpu_probe_bulk');
  await admin.end();
}

// ---------------------------------------------------------------------------
// MariaDB
// ---------------------------------------------------------------------------
const myAdapters = {
  mariadb: async (opts = {}) => {
    const mariadb = (await import('mariadb')).default;
    const c = await mariadb.createConnection({ ...MY, connectTimeout: 3000, ...opts });
    const events = [];
    c.on('error', (e) => events.push(e));
    return {
      q: (text, v) => c.query(text, v),
      x: (text, v) => c.execute(text, v),
      id: c.threadId,
      events,
      end: () => c.end().catch(() => c.destroy()),
      raw: c,
    };
  },
  mysql2: async (opts = {}) => {
    const mysql = (await import('mysql2/promise')).default;
    const c = await mysql.createConnection({ ...MY, connectTimeout: 3000, ...opts });
    const events = [];
    c.on('error', (e) => events.push(e));
    return {
      q: (text, v) => c.query(text, v),
      x: (text, v) => c.execute(text, v),
      id: c.threadId,
      events,
      end: () => c.end().catch(() => c.destroy()),
      raw: c,
    };
  },
};

async function myProbe(name, tmcPort) {
  const open = myAdapters[name];
  const admin = await open();
  await admin.q('DROP TABLE IF EXISTS dcpu_probe');
  await admin.q('CREATE TABLE dcpu_probe (id int PRIMARY KEY, v int NOT NULL) ENGINE=InnoDB');
  await admin.q('INSERT INTO dcpu_probe VALUES (1, 0), (2, 0)');
  const a = await open();
  const b = await open();

  // No 40001 from InnoDB by default; innodb_snapshot_isolation=ON (10.6.18+/10.11.8+)
  // makes a REPEATABLE READ write on a row changed since the snapshot fail.
  await a.q('SET SESSION innodb_snapshot_isolation = ON').catch((e) => report(name, 'snapshot_isolation', describe(e)));
  await a.q('START TRANSACTION WITH CONSISTENT SNAPSHOT');
  await a.q('SELECT v FROM dcpu_probe WHERE id = 1');
  await b.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 1');
  report(name, 'RR write conflict', describe(await catchErr(a.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 1'))));
  await a.q('ROLLBACK');
  await a.q('SET SESSION innodb_snapshot_isolation = OFF').catch(() => {});

  // 1213 deadlock (prepared statement path, to see the binary-protocol error too).
  await a.q('BEGIN');
  await b.q('BEGIN');
  await a.x('UPDATE dcpu_probe SET v = v + 1 WHERE id = ?', [1]);
  await b.x('UPDATE dcpu_probe SET v = v + 1 WHERE id = ?', [2]);
  const pa = catchErr(a.x('UPDATE dcpu_probe SET v = v + 1 WHERE id = ?', [2]));
  await sleep(100);
  const pb = catchErr(b.x('UPDATE dcpu_probe SET v = v + 1 WHERE id = ?', [1]));
  const [ea, eb] = await Promise.all([pa, pb]);
  report(name, '1213 deadlock', describe(ea || eb));
  await a.q('ROLLBACK');
  await b.q('ROLLBACK');

  // 1205 lock wait timeout.
  await a.q('BEGIN');
  await a.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 1');
  await b.q('SET SESSION innodb_lock_wait_timeout = 1');
  report(name, '1205 lock wait timeout', describe(await catchErr(b.q('UPDATE dcpu_probe SET v = v + 1 WHERE id = 1'))));
  await a.q('ROLLBACK');

  // Per-user connection limit on the shared server (1226, not 1040).
  const limOpts = { user: 'dcpu_limited', password: 'dcpu', database: undefined };
  const lim = await open(limOpts).catch((e) => e);
  report(name, 'user limit (1226)', describe(await catchErr(open(limOpts).then((c) => c.end()))));
  if (!(lim instanceof Error)) await lim.end();

  // 1040 too many connections, on the throwaway server.
  if (tmcPort) {
    const held = [];
    let err = null;
    for (let i = 0; i < 15 && !err; i++) {
      try {
        held.push(await open({ port: tmcPort, user: 'dcpu_tmc', password: '', database: undefined }));
      } catch (e) {
        err = e;
      }
    }
    report(name, `1040 too many conns`, `max_connections=10, user without privileges: ${held.length} opened, then ${describe(err)}`);
    for (const c of held) await c.end();
  } else report(name, '1040 too many conns', 'not run (no throwaway mariadbd)');

  // Connection loss: KILL from another session, then use the connection.
  await admin.q(`KILL CONNECTION ${a.id}`);
  await sleep(200);
  report(name, 'conn loss: async event', a.events.length ? describe(a.events[0]) : 'no error event');
  report(name, 'conn loss: next query', describe(await catchErr(within(3000, a.q('SELECT 1'), 'query on dead conn'))));
  report(name, 'conn loss: 2nd query', describe(await catchErr(within(3000, a.q('SELECT 1'), 'query on dead conn'))));
  await a.end();
  const pLong = catchErr(within(5000, b.q('SELECT SLEEP(3)'), 'SLEEP'));
  await sleep(200);
  await admin.q(`KILL CONNECTION ${b.id}`);
  report(name, 'conn loss: during query', describe(await pLong));
  await b.end();

  // Bulk: LOAD DATA LOCAL INFILE fed from a stream, and a multi-row INSERT path.
  await admin.q('DROP TABLE IF EXISTS dcpu_probe_bulk');
  await admin.q('CREATE TABLE dcpu_probe_bulk (id int PRIMARY KEY, v int, s varchar(40)) ENGINE=InnoDB');
  const tsv = () =>
    Readable.from(
      (function* () {
        for (let i = 1; i <= BULK_ROWS; i += 1000) {
          let chunk = '';
          for (let j = i; j < i + 1000 && j <= BULK_ROWS; j++) chunk += `${j}\t${j % 97}\tname ${j}\n`;
          yield Buffer.from(chunk); // mariadb 3.5.4 needs Buffer chunks (strings: 'arr.copy is not a function')
        }
      })(),
    );
  const count = async () =>
    Number((await admin.q('SELECT count(*) AS n FROM dcpu_probe_bulk'))[0].n ?? (await admin.q('SELECT count(*) AS n FROM dcpu_probe_bulk'))[0][0].n);
  let t0 = Date.now();
  let how;
  try {
    const sqlText = "LOAD DATA LOCAL INFILE 'dcpu.tsv' INTO TABLE dcpu_probe_bulk FIELDS TERMINATED BY '\\t'";
    if (name === 'mariadb') {
      how = 'createConnection({permitLocalInfile:true, infileStreamFactory}) + query(LOAD DATA LOCAL INFILE)';
      const c = await open({ permitLocalInfile: true, infileStreamFactory: () => tsv() });
      await c.q(sqlText);
      await c.end();
    } else {
      how = 'query({sql: LOAD DATA LOCAL INFILE, infileStreamFactory})';
      const c = await open();
      await c.raw.query({ sql: sqlText, infileStreamFactory: () => tsv() });
      await c.end();
    }
    report(name, 'bulk LOAD DATA LOCAL', `${how}: ${await count()} rows in ${Date.now() - t0} ms`);
  } catch (e) {
    report(name, 'bulk LOAD DATA LOCAL', `${how}: FAILED ${describe(e)}`);
  }
  await admin.q('TRUNCATE TABLE dcpu_probe_bulk');
  // Multi-row INSERT, 1000 rows per statement.
  t0 = Date.now();
  try {
    const c = await open();
    for (let i = 1; i <= BULK_ROWS; i += 1000) {
      const vals = [];
      for (let j = i; j < i + 1000; j++) vals.push([j, j % 97, `name ${j}`]);
      if (name === 'mariadb') await c.raw.batch('INSERT INTO dcpu_probe_bulk VALUES (?, ?, ?)', vals);
      else await c.raw.query('INSERT INTO dcpu_probe_bulk VALUES ?', [vals]);
    }
    await c.end();
    how = name === 'mariadb' ? "conn.batch('INSERT ... VALUES (?, ?, ?)', rows) x1000" : "query('INSERT ... VALUES ?', [rows]) x1000";
    report(name, 'bulk multi-row INSERT', `${how}: ${await count()} rows in ${Date.now() - t0} ms`);
  } catch (e) {
    report(name, 'bulk multi-row INSERT', `FAILED ${describe(e)}`);
  }
  await admin.q('DROP TABLE IF EXISTS dcpu_probe, dcpu_probe_bulk');
  await admin.end();
}

// Throwaway mariadbd with max_connections=1 for the 1040 case.
async function startTmcServer() {
  const port = Number(env.MY_TMC_PORT || 3399);
  const bin = '/usr/sbin/mariadbd';
  if (spawnSync('test', ['-x', bin]).status !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), 'dcpu-mariadb-'));
  const init = spawnSync(
    'mariadb-install-db',
    ['--no-defaults', `--datadir=${dir}/data`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db'],
    { encoding: 'utf8' },
  );
  if (init.status !== 0) {
    console.log('throwaway mariadbd: install-db failed:', init.stderr.slice(-300));
    return null;
  }
  const srv = spawn(
    bin,
    [
      '--no-defaults',
      `--datadir=${dir}/data`,
      '--user=root',
      '--bind-address=127.0.0.1',
      `--port=${port}`,
      `--socket=${dir}/sock`,
      `--pid-file=${dir}/pid`,
      '--max-connections=10',
      '--skip-log-bin',
      '--innodb-buffer-pool-size=16M',
    ],
    { stdio: 'ignore' },
  );
  const mariadb = (await import('mariadb')).default;
  for (let i = 0; i < 100; i++) {
    await sleep(100);
    try {
      const c = await mariadb.createConnection({ host: '127.0.0.1', port, user: 'root', password: '', database: 'mysql' });
      await c.query("CREATE USER IF NOT EXISTS 'dcpu_tmc'@'%'");
      await c.end();
      process.once('exit', () => {
        srv.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      });
      return {
        port,
        stop: async () => {
          srv.kill('SIGTERM');
          await new Promise((r) => srv.once('exit', r));
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch {}
  }
  srv.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
  return null;
}

async function main() {
  const only = env.ONLY ? env.ONLY.split(',') : null;
  const want = (n) => !only || only.includes(n);
  // PostgreSQL
  const pg = (await import('pg')).default;
  const adm = new pg.Client(PG);
  await adm.connect();
  await adm.query('DROP ROLE IF EXISTS dcpu_limited');
  await adm.query('CREATE ROLE dcpu_limited LOGIN CONNECTION LIMIT 1');
  try {
    for (const n of ['pg', 'pg-native', 'postgres']) {
      if (!want(n)) continue;
      if (n === 'pg-native') {
        try {
          require('pg-native');
        } catch (e) {
          report(n, 'load', `SKIPPED: ${e.message.split('\n')[0]}`);
          continue;
        }
      }
      await pgProbe(n).catch((e) => report(n, 'probe aborted', describe(e)));
    }
  } finally {
    await adm.query('DROP TABLE IF EXISTS dcpu_probe, dcpu_probe_bulk');
    await adm.query('DROP ROLE IF EXISTS dcpu_limited');
    await adm.end();
  }
  // MariaDB
  const mariadb = (await import('mariadb')).default;
  const madm = await mariadb.createConnection(MY);
  await madm.query("DROP USER IF EXISTS 'dcpu_limited'@'%'");
  await madm.query("CREATE USER 'dcpu_limited'@'%' IDENTIFIED BY 'dcpu' WITH MAX_USER_CONNECTIONS 1");
  const tmc = want('mariadb') || want('mysql2') ? await startTmcServer() : null;
  try {
    for (const n of ['mariadb', 'mysql2']) {
      if (!want(n)) continue;
      await myProbe(n, tmc?.port).catch((e) => report(n, 'probe aborted', describe(e)));
    }
  } finally {
    await madm.query('DROP TABLE IF EXISTS dcpu_probe, dcpu_probe_bulk');
    await madm.query("DROP USER IF EXISTS 'dcpu_limited'@'%'");
    await madm.end();
    await tmc?.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
