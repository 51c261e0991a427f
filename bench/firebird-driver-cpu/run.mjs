// Client CPU per transaction of Node.js Firebird drivers (see README.md).
// Parent: prepares the tables, then starts one fresh child process per cell.
// Child (argv[2] === 'child'): opens N connections, runs a closed loop on each, prints JSON.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Firebird from 'node-firebird';
import C from 'node-firebird/lib/wire/const.js';
import { parseRecordCounts } from 'node-firebird/lib/wire/xsqlvar.js';

const env = process.env;
const HOST = env.FBHOST ?? '127.0.0.1';
const PORT = Number(env.FBPORT ?? 3050);
const USER = env.ISC_USER ?? 'SYSDBA';
const PASSWORD = env.ISC_PASSWORD ?? 'masterkey';
const FILE = env.FBFILE ?? '/var/lib/firebird/3.0/data/headroom_driver_cpu.fdb';
const WARMUP_S = Number(env.WARMUP_S ?? 1);
const DURATION_S = Number(env.DURATION_S ?? 3);
const RUNS = Number(env.RUNS ?? 2);
const CONNS = (env.CONNS ?? '1,8').split(',').map(Number);
const WORKLOADS = (env.WORKLOADS ?? 'select,tpcb').split(',');
const ACCOUNTS = 100_000;
const K = C.default ?? C;
const fbOptions = { host: HOST, port: PORT, user: USER, password: PASSWORD, database: FILE };

const SQL = {
  select: 'SELECT abalance FROM dcpu_accounts WHERE aid = ?',
  updAccount: 'UPDATE dcpu_accounts SET abalance = abalance + ? WHERE aid = ?',
  updTeller: 'UPDATE dcpu_tellers SET tbalance = tbalance + ? WHERE tid = ?',
  updBranch: 'UPDATE dcpu_branches SET bbalance = bbalance + ? WHERE bid = ?',
  insHistory: 'INSERT INTO dcpu_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)',
};
const rnd = (n) => 1 + Math.floor(Math.random() * n);

/** Each candidate: open() → { select(aid), tpcb(aid, tid, delta), close() } */
const CANDIDATES = {
  // node-firebird, prepared statements; each DML waits for its execute, then asks for the row
  // count (op_info_sql) in a second round trip, as Statement.run needs the affected rows.
  'node-firebird': () => nodeFirebird(false),
  // The same, with execute and the row-count request (and execute and fetch) written back to
  // back so they share one round trip.
  'node-firebird-pipelined': () => nodeFirebird(true),
  // node-firebird-driver-native over libfbclient (no affected-row count available).
  native: nativeDriver,
};

async function nodeFirebird(pipelined) {
  const db = await Firebird.attachAsync(fbOptions);
  const tx0 = await db.transactionAsync(Firebird.ISOLATION_READ_COMMITTED);
  const prepared = {};
  for (const [k, sql] of Object.entries(SQL)) prepared[k] = await tx0.newStatementAsync(sql);
  await tx0.commitAsync();
  const run = (tx, st, params) =>
    new Promise((resolve, reject) => {
      if (pipelined) {
        st.execute(tx, params, (e) => e && reject(e));
        st.connection.statementInfo(st, K.RECORDS_INFO, (e, info) => (e ? reject(e) : resolve(parseRecordCounts(info && info.buffer))));
      } else {
        st.execute(tx, params, (e) => {
          if (e) return reject(e);
          st.connection.statementInfo(st, K.RECORDS_INFO, (e2, info) => (e2 ? reject(e2) : resolve(parseRecordCounts(info && info.buffer))));
        });
      }
    });
  const all = (tx, st, params) =>
    new Promise((resolve, reject) => {
      if (pipelined) {
        st.execute(tx, params, (e) => e && reject(e));
        st.fetchAll(tx, (e, rows) => (e ? reject(e) : resolve(rows)));
      } else {
        st.execute(tx, params, (e) => (e ? reject(e) : st.fetchAll(tx, (e2, rows) => (e2 ? reject(e2) : resolve(rows)))));
      }
    });
  return {
    async select(aid) {
      const tx = await db.transactionAsync({ isolation: Firebird.ISOLATION_READ_COMMITTED_READ_ONLY, autoCommit: true });
      await all(tx, prepared.select, [aid]);
      await tx.commitAsync();
    },
    async tpcb(aid, tid, delta) {
      const tx = await db.transactionAsync(Firebird.ISOLATION_READ_COMMITTED);
      try {
        await run(tx, prepared.updAccount, [delta, aid]);
        await all(tx, prepared.select, [aid]);
        await run(tx, prepared.updTeller, [delta, tid]);
        await run(tx, prepared.updBranch, [delta, 1]);
        await run(tx, prepared.insHistory, [tid, 1, aid, delta]);
        await tx.commitAsync();
      } catch (e) {
        await tx.rollbackAsync();
        throw e;
      }
    },
    close: () => db.detachAsync(),
  };
}

async function nativeDriver() {
  const { createNativeClient, getDefaultLibraryFilename } = await import('node-firebird-driver-native');
  // Debian's libfbclient2 ships only the versioned name; libfbclient.so comes with firebird-dev.
  const client = createNativeClient(env.FBCLIENT ?? (process.platform === 'linux' ? 'libfbclient.so.2' : getDefaultLibraryFilename()));
  const att = await client.connect(`${HOST}/${PORT}:${FILE}`, { username: USER, password: PASSWORD });
  const tx0 = await att.startTransaction();
  const prepared = {};
  for (const [k, sql] of Object.entries(SQL)) prepared[k] = await att.prepare(tx0, sql);
  await tx0.commit();
  const all = async (tx, st, params) => {
    const rs = await st.executeQuery(tx, params);
    const rows = await rs.fetch();
    await rs.close();
    return rows;
  };
  return {
    async select(aid) {
      const tx = await att.startTransaction({ isolation: 'READ_COMMITTED', accessMode: 'READ_ONLY' });
      await all(tx, prepared.select, [aid]);
      await tx.commit();
    },
    async tpcb(aid, tid, delta) {
      const tx = await att.startTransaction({ isolation: 'READ_COMMITTED' });
      try {
        await prepared.updAccount.execute(tx, [delta, aid]);
        await all(tx, prepared.select, [aid]);
        await prepared.updTeller.execute(tx, [delta, tid]);
        await prepared.updBranch.execute(tx, [delta, 1]);
        await prepared.insHistory.execute(tx, [tid, 1, aid, delta]);
        await tx.commit();
      } catch (e) {
        await tx.rollback();
        throw e;
      }
    },
    async close() {
      await att.disconnect();
      await client.dispose();
    },
  };
}

async function child(candidate, workload, conns) {
  const clients = [];
  for (let i = 0; i < conns; i++) clients.push(await CANDIDATES[candidate]());
  let phase = 'warmup';
  let count = 0;
  let retries = 0;
  const loop = async (c) => {
    while (phase !== 'stop') {
      try {
        if (workload === 'select') await c.select(rnd(ACCOUNTS));
        else await c.tpcb(rnd(ACCOUNTS), rnd(10), rnd(10001) - 5001);
        if (phase === 'measure') count++;
      } catch (e) {
        // 8 connections on one branch row: update conflicts are expected and counted; the
        // transaction was rolled back and the loop goes on, as headroom's retry would.
        if (phase === 'measure') retries++;
      }
    }
  };
  const loops = clients.map(loop);
  await new Promise((r) => setTimeout(r, WARMUP_S * 1000));
  phase = 'measure';
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, DURATION_S * 1000));
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  const measured = count;
  phase = 'stop';
  await Promise.all(loops);
  for (const c of clients) await c.close();
  process.stdout.write(
    JSON.stringify({ candidate, workload, conns, txns: measured, retries, tps: measured / seconds, usPerTxn: (cpu.user + cpu.system) / measured }) + '\n',
  );
}

async function setup() {
  const db = await Firebird.attachOrCreateAsync(fbOptions);
  for (const t of ['dcpu_history', 'dcpu_tellers', 'dcpu_accounts', 'dcpu_branches']) await db.queryAsync(`DROP TABLE ${t}`).catch(() => {});
  await db.queryAsync('CREATE TABLE dcpu_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88))');
  await db.queryAsync('CREATE TABLE dcpu_tellers (tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84))');
  await db.queryAsync('CREATE TABLE dcpu_accounts (aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84))');
  await db.queryAsync('CREATE TABLE dcpu_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))');
  await db.queryAsync("INSERT INTO dcpu_branches VALUES (1, 0, '')");
  await db.queryAsync(`EXECUTE BLOCK AS DECLARE i int = 1; BEGIN
    WHILE (i <= 10) DO BEGIN INSERT INTO dcpu_tellers VALUES (:i, 1, 0, ''); i = i + 1; END
    i = 1; WHILE (i <= ${ACCOUNTS}) DO BEGIN INSERT INTO dcpu_accounts VALUES (:i, 1, 0, ''); i = i + 1; END END`);
  await db.detachAsync();
  // Commits wait for the disk with forced writes on; this measures the client, so let the
  // server write asynchronously and finish more transactions per cell.
  spawnSync('gfix', ['-write', 'async', '-user', USER, '-password', PASSWORD, `${HOST}/${PORT}:${FILE}`], { stdio: 'inherit' });
}

if (process.argv[2] === 'child') {
  await child(process.argv[3], process.argv[4], Number(process.argv[5]));
  process.exit(0);
} else {
  await setup();
  const only = env.ONLY ? env.ONLY.split(',') : Object.keys(CANDIDATES);
  const results = [];
  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 === 0 ? only : [...only].reverse();
    for (const candidate of order)
      for (const workload of WORKLOADS)
        for (const conns of CONNS) {
          // libfbclient calls run on libuv's thread pool (4 threads by default): 8 connections waiting
          // on row locks would take every thread and the commit that frees them would never run.
          const out = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'child', candidate, workload, String(conns)], {
            encoding: 'utf8',
            env: { ...env, UV_THREADPOOL_SIZE: '16' },
            timeout: (WARMUP_S + DURATION_S + 60) * 1000,
          });
          if (out.status !== 0) {
            console.log(`SKIP ${candidate} ${workload} ${conns}: ${out.stderr.trim().split('\n').slice(-3).join(' ')}`);
            continue;
          }
          const r = JSON.parse(out.stdout.trim().split('\n').pop());
          results.push(r);
          console.log(
            `run ${run + 1} ${candidate.padEnd(24)} ${workload.padEnd(6)} c=${conns}  ${r.tps.toFixed(0).padStart(6)} tps  ${r.usPerTxn.toFixed(0).padStart(5)} µs/txn  (${r.retries} retried)`,
          );
        }
  }
  console.log('\nmeans over runs: candidate, workload, connections, tps, client µs/txn');
  for (const candidate of only)
    for (const workload of WORKLOADS)
      for (const conns of CONNS) {
        const rs = results.filter((r) => r.candidate === candidate && r.workload === workload && r.conns === conns);
        if (rs.length === 0) continue;
        const mean = (f) => rs.reduce((s, r) => s + f(r), 0) / rs.length;
        console.log(
          `${candidate.padEnd(24)} ${workload.padEnd(6)} ${String(conns).padStart(2)}  ${mean((r) => r.tps)
            .toFixed(0)
            .padStart(6)}  ${mean((r) => r.usPerTxn)
            .toFixed(0)
            .padStart(5)}`,
        );
      }
  const db = await Firebird.attachAsync(fbOptions);
  await db.detachAsync();
  await Firebird.dropAsync(fbOptions).catch(() => {});
}
