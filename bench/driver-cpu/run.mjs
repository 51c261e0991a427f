#!/usr/bin/env node
// Client-CPU-per-transaction benchmark of Node.js PostgreSQL and MariaDB drivers.
//
//   cd bench/driver-cpu && npm install && node run.mjs
//
// The parent process creates dcpu_* tables (100,000 accounts, 10 tellers,
// 1 branch) in both test databases, then runs every cell
// (candidate x workload x connections) in a fresh child process, back to back,
// for RUNS passes (even passes in reverse candidate order), prints one table with every pass, and drops the tables.
// Each child opens N connections, runs one closed loop per connection, warms
// up for WARMUP_S seconds and then measures DURATION_S seconds:
//   client CPU  = process.cpuUsage() (user+system) delta of the child
//   server CPU  = utime+stime delta of the postgres / mariadbd processes
//                 (read from /proc by the parent, so not billed to the client)
// Settings (environment): WARMUP_S (1), DURATION_S (3), RUNS (2),
//   CONNS ("1,8"), WORKLOADS ("select,tpcb"), ONLY (comma list of candidate ids),
//   PGHOST PGPORT PGUSER PGDATABASE, MYHOST MYPORT MYUSER MYPASSWORD MYDATABASE,
//   JSON_OUT (file to write raw results to).

import { fork } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const WIRE_MODULE = fileURLToPath(new URL('../../dist/src/drivers/postgres/wire/connection.js', import.meta.url));

const require = createRequire(import.meta.url);
const SELF = fileURLToPath(import.meta.url);

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
const WARMUP_S = Number(env.WARMUP_S || 1);
const DURATION_S = Number(env.DURATION_S || 3);
const RUNS = Number(env.RUNS || 2);
const CONNS = (env.CONNS || '1,8').split(',').map(Number);
const WORKLOADS = (env.WORKLOADS || 'select,tpcb').split(',');
const ACCOUNTS = 100_000;
const TELLERS = 10;
const BRANCHES = 1;

// ---------------------------------------------------------------------------
// SQL (the same statements for every driver of one database)
// ---------------------------------------------------------------------------
const PGSQL = {
  select: 'SELECT abalance FROM dcpu_accounts WHERE aid = $1',
  updAcc: 'UPDATE dcpu_accounts SET abalance = abalance + $1 WHERE aid = $2',
  updTel: 'UPDATE dcpu_tellers SET tbalance = tbalance + $1 WHERE tid = $2',
  updBr: 'UPDATE dcpu_branches SET bbalance = bbalance + $1 WHERE bid = $2',
  insHist: 'INSERT INTO dcpu_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)',
};
const MYSQL = {
  select: 'SELECT abalance FROM dcpu_accounts WHERE aid = ?',
  updAcc: 'UPDATE dcpu_accounts SET abalance = abalance + ? WHERE aid = ?',
  updTel: 'UPDATE dcpu_tellers SET tbalance = tbalance + ? WHERE tid = ?',
  updBr: 'UPDATE dcpu_branches SET bbalance = bbalance + ? WHERE bid = ?',
  insHist: 'INSERT INTO dcpu_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)',
};

const rnd = (n) => 1 + Math.floor(Math.random() * n);
const params = () => ({
  aid: rnd(ACCOUNTS),
  tid: rnd(TELLERS),
  bid: rnd(BRANCHES),
  delta: Math.floor(Math.random() * 10001) - 5000,
});

// ---------------------------------------------------------------------------
// Candidates. open() returns { select(aid), tpcb(p), close() } for ONE
// dedicated connection.
// ---------------------------------------------------------------------------
function pgSession(Client) {
  return async () => {
    const c = new Client(PG);
    await c.connect();
    const q = (name, text, values) => c.query({ name, text, values });
    return {
      select: (aid) => q('dcpu_sel', PGSQL.select, [aid]),
      async tpcb({ aid, tid, bid, delta }) {
        await c.query('BEGIN');
        try {
          await q('dcpu_upd_acc', PGSQL.updAcc, [delta, aid]);
          await q('dcpu_sel', PGSQL.select, [aid]);
          await q('dcpu_upd_tel', PGSQL.updTel, [delta, tid]);
          await q('dcpu_upd_br', PGSQL.updBr, [delta, bid]);
          await q('dcpu_ins_hist', PGSQL.insHist, [tid, bid, aid, delta]);
          await c.query('COMMIT');
        } catch (e) {
          await c.query('ROLLBACK').catch(() => {});
          throw e;
        }
      },
      close: () => c.end(),
    };
  };
}

const CANDIDATES = [
  {
    id: 'pg',
    db: 'pg',
    label: 'pg (JS, named prepared)',
    pkgs: ['pg'],
    open: async () => pgSession((await import('pg')).default.Client)(),
  },
  {
    id: 'pg-native',
    db: 'pg',
    label: 'pg + pg-native (libpq, named prepared)',
    pkgs: ['pg', 'pg-native', 'libpq'],
    available() {
      try {
        require('pg-native');
        return null;
      } catch (e) {
        return `pg-native not loadable: ${e.message.split('\n')[0]}`;
      }
    },
    open: async () => {
      const pg = (await import('pg')).default;
      return pgSession(pg.native.Client)();
    },
  },
  {
    // headroom's own protocol client (src/drivers/postgres/wire), built by `npm run build` at the root.
    id: 'headroom-wire',
    db: 'pg',
    label: "headroom's wire client (prepared, text results)",
    pkgs: [],
    available() {
      return existsSync(WIRE_MODULE) ? null : `${WIRE_MODULE} missing: run npm run build in the repository root`;
    },
    open: async () => {
      const { WireConnection } = await import(pathToFileURL(WIRE_MODULE).href);
      const c = await WireConnection.connect({ ...PG, password: env.PGPASSWORD, applicationName: 'driver-cpu', connectTimeoutMs: 10000 });
      const st = {};
      for (const [key, text] of Object.entries(PGSQL)) st[key] = await c.prepare(text);
      return {
        select: (aid) => c.execute(st.select, [aid], true),
        async tpcb({ aid, tid, bid, delta }) {
          await c.simpleQuery('BEGIN');
          try {
            await c.execute(st.updAcc, [delta, aid], false);
            await c.execute(st.select, [aid], true);
            await c.execute(st.updTel, [delta, tid], false);
            await c.execute(st.updBr, [delta, bid], false);
            await c.execute(st.insHist, [tid, bid, aid, delta], false);
            await c.simpleQuery('COMMIT');
          } catch (e) {
            await c.simpleQuery('ROLLBACK').catch(() => {});
            throw e;
          }
        },
        close: () => c.close(),
      };
    },
  },
  {
    id: 'postgres',
    db: 'pg',
    label: 'postgres (porsager, max:1, prepare)',
    pkgs: ['postgres'],
    open: async () => {
      const postgres = (await import('postgres')).default;
      const sql = postgres({ ...PG, max: 1, prepare: true, onnotice: () => {} });
      await sql`SELECT 1`; // connect now, not inside the measured window
      return {
        select: (aid) => sql`SELECT abalance FROM dcpu_accounts WHERE aid = ${aid}`,
        tpcb: ({ aid, tid, bid, delta }) =>
          sql.begin(async (t) => {
            await t`UPDATE dcpu_accounts SET abalance = abalance + ${delta} WHERE aid = ${aid}`;
            await t`SELECT abalance FROM dcpu_accounts WHERE aid = ${aid}`;
            await t`UPDATE dcpu_tellers SET tbalance = tbalance + ${delta} WHERE tid = ${tid}`;
            await t`UPDATE dcpu_branches SET bbalance = bbalance + ${delta} WHERE bid = ${bid}`;
            await t`INSERT INTO dcpu_history (tid, bid, aid, delta, mtime) VALUES (${tid}, ${bid}, ${aid}, ${delta}, CURRENT_TIMESTAMP)`;
          }),
        close: () => sql.end({ timeout: 5 }),
      };
    },
  },
  {
    id: 'mariadb-prepare',
    db: 'my',
    label: 'mariadb (conn.prepare/execute)',
    pkgs: ['mariadb'],
    open: async () => {
      const mariadb = (await import('mariadb')).default;
      const c = await mariadb.createConnection(MY);
      const st = {};
      for (const [k, text] of Object.entries(MYSQL)) st[k] = await c.prepare(text);
      return {
        select: (aid) => st.select.execute([aid]),
        async tpcb({ aid, tid, bid, delta }) {
          await c.beginTransaction();
          try {
            await st.updAcc.execute([delta, aid]);
            await st.select.execute([aid]);
            await st.updTel.execute([delta, tid]);
            await st.updBr.execute([delta, bid]);
            await st.insHist.execute([tid, bid, aid, delta]);
            await c.commit();
          } catch (e) {
            await c.rollback().catch(() => {});
            throw e;
          }
        },
        async close() {
          for (const s of Object.values(st)) s.close();
          await c.end();
        },
      };
    },
  },
  {
    id: 'mariadb-query',
    db: 'my',
    label: 'mariadb (conn.query, text protocol)',
    pkgs: ['mariadb'],
    open: async () => {
      const mariadb = (await import('mariadb')).default;
      const c = await mariadb.createConnection(MY);
      return myTextSession(c);
    },
  },
  {
    id: 'mysql2-execute',
    db: 'my',
    label: 'mysql2 (conn.execute, prepared)',
    pkgs: ['mysql2'],
    open: async () => {
      const mysql = (await import('mysql2/promise')).default;
      const c = await mysql.createConnection(MY);
      return {
        select: (aid) => c.execute(MYSQL.select, [aid]),
        async tpcb({ aid, tid, bid, delta }) {
          await c.beginTransaction();
          try {
            await c.execute(MYSQL.updAcc, [delta, aid]);
            await c.execute(MYSQL.select, [aid]);
            await c.execute(MYSQL.updTel, [delta, tid]);
            await c.execute(MYSQL.updBr, [delta, bid]);
            await c.execute(MYSQL.insHist, [tid, bid, aid, delta]);
            await c.commit();
          } catch (e) {
            await c.rollback().catch(() => {});
            throw e;
          }
        },
        close: () => c.end(),
      };
    },
  },
  {
    id: 'mysql2-query',
    db: 'my',
    label: 'mysql2 (conn.query, text protocol)',
    pkgs: ['mysql2'],
    open: async () => {
      const mysql = (await import('mysql2/promise')).default;
      const c = await mysql.createConnection(MY);
      return myTextSession(c);
    },
  },
];

function myTextSession(c) {
  return {
    select: (aid) => c.query(MYSQL.select, [aid]),
    async tpcb({ aid, tid, bid, delta }) {
      await c.beginTransaction();
      try {
        await c.query(MYSQL.updAcc, [delta, aid]);
        await c.query(MYSQL.select, [aid]);
        await c.query(MYSQL.updTel, [delta, tid]);
        await c.query(MYSQL.updBr, [delta, bid]);
        await c.query(MYSQL.insHist, [tid, bid, aid, delta]);
        await c.commit();
      } catch (e) {
        await c.rollback().catch(() => {});
        throw e;
      }
    },
    close: () => c.end(),
  };
}

// ---------------------------------------------------------------------------
// Child: one cell
// ---------------------------------------------------------------------------
async function child(candId, workload, conns) {
  const cand = CANDIDATES.find((c) => c.id === candId);
  const sessions = [];
  for (let i = 0; i < conns; i++) sessions.push(await cand.open());

  let phase = 'warmup'; // warmup -> measure -> stop
  let done = 0;
  let errors = 0;
  const errCodes = {};
  const loop = async (s) => {
    while (phase !== 'stop') {
      try {
        if (workload === 'select') await s.select(rnd(ACCOUNTS));
        else await s.tpcb(params());
        if (phase === 'measure') done++;
      } catch (e) {
        if (phase === 'measure') errors++;
        const k = String(e.code ?? e.errno ?? e.message).slice(0, 40);
        errCodes[k] = (errCodes[k] || 0) + 1;
      }
    }
  };
  const loops = sessions.map(loop);
  const sleep = (s) => new Promise((r) => setTimeout(r, s * 1000));

  await sleep(WARMUP_S);
  const ask = (msg) =>
    new Promise((r) => {
      process.once('message', r);
      process.send(msg);
    });
  await ask({ t: 'start' }); // parent samples server CPU, then answers
  phase = 'measure';
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await sleep(DURATION_S);
  const cpu = process.cpuUsage(cpu0);
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  const txns = done;
  const errs = errors;
  phase = 'stop';
  await ask({ t: 'end' });
  await Promise.all(loops);
  for (const s of sessions) await s.close();
  process.send({
    t: 'result',
    txns,
    errors: errs,
    errCodes,
    elapsed,
    userUs: cpu.user,
    sysUs: cpu.system,
  });
}

// ---------------------------------------------------------------------------
// Parent
// ---------------------------------------------------------------------------
const TICK_US = 1e6 / 100; // USER_HZ is 100 on Linux/x86_64 (getconf CLK_TCK)

function serverCpuUs(db) {
  const names = db === 'pg' ? ['postgres'] : ['mariadbd', 'mysqld'];
  const m = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let st;
    try {
      st = readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue;
    }
    const comm = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
    if (!names.includes(comm)) continue;
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    m.set(d, (Number(f[11]) + Number(f[12])) * TICK_US); // utime, stime
  }
  return m;
}
const serverDelta = (a, b) => {
  let s = 0;
  for (const [pid, v] of b) s += v - (a.get(pid) ?? 0);
  return s;
};

function runCell(cand, workload, conns) {
  return new Promise((resolve, reject) => {
    const cp = fork(SELF, ['--cell', cand.id, workload, String(conns)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let s0;
    let srv = null;
    let result = null;
    cp.on('message', (m) => {
      if (m.t === 'start') {
        s0 = serverCpuUs(cand.db);
        cp.send('go');
      } else if (m.t === 'end') {
        srv = serverDelta(s0, serverCpuUs(cand.db));
        cp.send('go');
      } else if (m.t === 'result') result = m;
    });
    cp.on('error', reject);
    cp.on('exit', (code) => {
      if (code !== 0 || !result) return reject(new Error(`${cand.id} ${workload} x${conns}: child exit ${code}`));
      resolve({ ...result, serverUs: srv });
    });
  });
}

async function setupPg() {
  const { Client } = (await import('pg')).default;
  const c = new Client(PG);
  await c.connect();
  await dropPg(c);
  await c.query(`CREATE TABLE dcpu_branches (bid int PRIMARY KEY, bbalance int NOT NULL, filler char(88))`);
  await c.query(`CREATE TABLE dcpu_tellers (tid int PRIMARY KEY, bid int NOT NULL, tbalance int NOT NULL, filler char(84))`);
  await c.query(`CREATE TABLE dcpu_accounts (aid int PRIMARY KEY, bid int NOT NULL, abalance int NOT NULL, filler char(84))`);
  await c.query(`CREATE TABLE dcpu_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))`);
  await c.query(`INSERT INTO dcpu_branches SELECT g, 0, '' FROM generate_series(1, ${BRANCHES}) g`);
  await c.query(`INSERT INTO dcpu_tellers SELECT g, 1 + (g - 1) % ${BRANCHES}, 0, '' FROM generate_series(1, ${TELLERS}) g`);
  await c.query(`INSERT INTO dcpu_accounts SELECT g, 1 + (g - 1) % ${BRANCHES}, 0, '' FROM generate_series(1, ${ACCOUNTS}) g`);
  await c.query('VACUUM ANALYZE dcpu_branches, dcpu_tellers, dcpu_accounts, dcpu_history');
  await c.end();
}
async function dropPg(c) {
  await c.query('DROP TABLE IF EXISTS dcpu_history, dcpu_accounts, dcpu_tellers, dcpu_branches');
}
async function setupMy() {
  const mariadb = (await import('mariadb')).default;
  const c = await mariadb.createConnection(MY);
  await dropMy(c);
  await c.query('SET SESSION max_recursive_iterations = 1000000');
  await c.query(`CREATE TABLE dcpu_branches (bid int PRIMARY KEY, bbalance int NOT NULL, filler char(88)) ENGINE=InnoDB`);
  await c.query(`CREATE TABLE dcpu_tellers (tid int PRIMARY KEY, bid int NOT NULL, tbalance int NOT NULL, filler char(84)) ENGINE=InnoDB`);
  await c.query(`CREATE TABLE dcpu_accounts (aid int PRIMARY KEY, bid int NOT NULL, abalance int NOT NULL, filler char(84)) ENGINE=InnoDB`);
  await c.query(`CREATE TABLE dcpu_history (tid int, bid int, aid int, delta int, mtime timestamp NULL, filler char(22)) ENGINE=InnoDB`);
  const gen = (n) => `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${n}) `;
  await c.query(`INSERT INTO dcpu_branches ${gen(BRANCHES)} SELECT n, 0, '' FROM g`);
  await c.query(`INSERT INTO dcpu_tellers ${gen(TELLERS)} SELECT n, 1 + (n - 1) % ${BRANCHES}, 0, '' FROM g`);
  await c.query(`INSERT INTO dcpu_accounts ${gen(ACCOUNTS)} SELECT n, 1 + (n - 1) % ${BRANCHES}, 0, '' FROM g`);
  await c.query('ANALYZE TABLE dcpu_branches, dcpu_tellers, dcpu_accounts');
  await c.end();
}
async function dropMy(c) {
  await c.query('DROP TABLE IF EXISTS dcpu_history, dcpu_accounts, dcpu_tellers, dcpu_branches');
}
async function teardown() {
  try {
    const { Client } = (await import('pg')).default;
    const c = new Client(PG);
    await c.connect();
    await dropPg(c);
    await c.end();
  } catch (e) {
    console.error('PostgreSQL teardown failed:', e.message);
  }
  try {
    const mariadb = (await import('mariadb')).default;
    const c = await mariadb.createConnection(MY);
    await dropMy(c);
    await c.end();
  } catch (e) {
    console.error('MariaDB teardown failed:', e.message);
  }
}

const version = (p) => {
  try {
    return JSON.parse(readFileSync(new URL(`./node_modules/${p}/package.json`, import.meta.url))).version;
  } catch {
    return '?';
  }
};
const pad = (s, n, right = false) => (right ? String(s).padStart(n) : String(s).padEnd(n));
const fmt = (x, d = 0) => (x == null || Number.isNaN(x) ? '-' : x.toFixed(d));

async function parent() {
  const only = env.ONLY ? env.ONLY.split(',') : null;
  const cands = [];
  for (const c of CANDIDATES) {
    if (only && !only.includes(c.id)) continue;
    const why = c.available?.();
    if (why) console.log(`SKIP ${c.id}: ${why}`);
    else cands.push(c);
  }
  const dbs = new Set(cands.map((c) => c.db));
  console.log(`node ${process.version}; ${[...new Set(cands.flatMap((c) => c.pkgs))].map((p) => `${p}@${version(p)}`).join(' ')}`);
  console.log(`warm-up ${WARMUP_S}s, measured ${DURATION_S}s, runs ${RUNS}, conns ${CONNS.join('/')}, workloads ${WORKLOADS.join('/')}`);
  const started = Date.now();
  const onSig = async () => {
    console.error('\ninterrupted; dropping dcpu_* tables');
    await teardown();
    process.exit(130);
  };
  process.once('SIGINT', onSig);
  process.once('SIGTERM', onSig);

  const results = [];
  try {
    if (dbs.has('pg')) await setupPg();
    if (dbs.has('my')) await setupMy();
    console.log(`setup done in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    for (let run = 1; run <= RUNS; run++) {
      // Even runs go through the candidates in reverse order, so no candidate
      // always sits right after the same neighbour or at the same point in time.
      for (const cand of run % 2 ? cands : [...cands].reverse()) {
        for (const workload of WORKLOADS) {
          for (const conns of CONNS) {
            const r = await runCell(cand, workload, conns);
            const row = {
              run,
              cand: cand.id,
              workload,
              conns,
              tps: r.txns / r.elapsed,
              cliUs: (r.userUs + r.sysUs) / r.txns,
              srvUs: r.serverUs / r.txns,
              ...r,
            };
            results.push(row);
            console.log(
              `run ${run} ${pad(cand.id, 16)} ${pad(workload, 6)} x${conns}: ` +
                `${fmt(row.tps)} tps, client ${fmt(row.cliUs, 1)} us/txn ` +
                `(user ${fmt(r.userUs / r.txns, 1)} sys ${fmt(r.sysUs / r.txns, 1)}), server ${fmt(row.srvUs, 1)} us/txn` +
                (r.errors ? `, errors ${r.errors} ${JSON.stringify(r.errCodes)}` : ''),
            );
          }
        }
      }
    }
  } finally {
    await teardown();
  }

  // Table: one row per cell, both runs side by side.
  const get = (c, w, n, run) => results.find((r) => r.cand === c && r.workload === w && r.conns === n && r.run === run);
  const runs = [...Array(RUNS).keys()].map((i) => i + 1);
  const head =
    `| candidate | workload | conns | ` +
    runs.map((r) => `TPS r${r}`).join(' | ') +
    ' | ' +
    runs.map((r) => `client µs/txn r${r}`).join(' | ') +
    ' | ' +
    runs.map((r) => `server µs/txn r${r}`).join(' | ') +
    ' | errors |';
  const lines = [head, head.replace(/[^|]+/g, (s) => '-'.repeat(Math.max(3, s.length)))];
  for (const c of cands) {
    for (const w of WORKLOADS) {
      for (const n of CONNS) {
        const rs = runs.map((r) => get(c.id, w, n, r));
        lines.push(
          `| ${c.id} | ${w} | ${n} | ` +
            rs.map((r) => fmt(r?.tps)).join(' | ') +
            ' | ' +
            rs.map((r) => fmt(r?.cliUs, 1)).join(' | ') +
            ' | ' +
            rs.map((r) => fmt(r?.srvUs, 1)).join(' | ') +
            ` | ${rs.reduce((a, r) => a + (r?.errors ?? 0), 0)} |`,
        );
      }
    }
  }
  console.log('\n' + lines.join('\n'));

  // Ranking per database and workload: mean over connection counts and runs.
  console.log('\nMean over connection counts and runs, per workload (ranked by client µs/txn, lower is better):');
  for (const db of ['pg', 'my']) {
    for (const w of WORKLOADS) {
      const rank = cands
        .filter((c) => c.db === db)
        .map((c) => {
          const rs = results.filter((r) => r.cand === c.id && r.workload === w);
          const mean = (k) => rs.reduce((a, r) => a + r[k], 0) / rs.length;
          return {
            label: c.label,
            cli: mean('cliUs'),
            user: rs.reduce((a, r) => a + r.userUs / r.txns, 0) / rs.length,
            sys: rs.reduce((a, r) => a + r.sysUs / r.txns, 0) / rs.length,
            srv: mean('srvUs'),
            tps: mean('tps'),
          };
        })
        .sort((a, b) => a.cli - b.cli);
      for (const r of rank)
        console.log(
          `  ${db === 'pg' ? 'PostgreSQL' : 'MariaDB   '} ${pad(w, 6)} ${pad(r.label, 40)} ` +
            `client ${pad(fmt(r.cli, 1), 7, true)} µs/txn (user ${pad(fmt(r.user, 1), 6, true)} sys ${pad(fmt(r.sys, 1), 6, true)}), server ${pad(fmt(r.srv, 1), 7, true)} µs/txn, TPS ${pad(fmt(r.tps), 6, true)}`,
        );
    }
  }
  if (env.JSON_OUT) writeFileSync(env.JSON_OUT, JSON.stringify(results, null, 2));
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)}s`);
}

if (process.argv[2] === '--cell') {
  child(process.argv[3], process.argv[4], Number(process.argv[5])).then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
} else {
  parent().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
