#!/usr/bin/env node
// What the script interpreter itself costs per transaction, without a database: pgbench's
// select-only and tpcb-like run (a) as scripts through the interpreter and (b) as the hand-coded
// closures headroom used before (prepared statements bound once, random draws inline), both
// against a connection whose calls resolve at once. The difference is the interpreter's client
// CPU per transaction, to set beside a real run's client CPU per transaction (bench/pgbench-vs-headroom.mjs).
//
//   node bench/script-interpreter-cpu.mjs [--transactions 200000] [--rounds 3]
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { transactions: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '3' } } });
const dist = (p) => new URL(`../dist/src/${p}`, import.meta.url).href;
const { compileScript } = await import(dist('workloads/pgbench-script/program.js'));
const { scriptTransaction } = await import(dist('workloads/pgbench-script/script-transaction.js'));
const { BUILTIN_SCRIPTS } = await import(dist('workloads/pgbench-script/builtin-scripts.js'));
const { Random } = await import(dist('common/random.js'));

const statement = { run: async () => 1, all: async () => [[0]] };
const conn = { prepare: async () => statement, query: async () => [], begin: async () => {}, commit: async () => {}, rollback: async () => {} };
const terminal = (seed) => ({
  terminal: 0,
  terminals: 1,
  transactionsPerTerminal: undefined,
  scale: 10,
  dbms: 'postgres',
  random: new Random(seed),
  options: {},
  protocol: 'prepared',
  seed,
});

const handCoded = {
  'select-only': async (c, t) => {
    const select = await c.prepare('SELECT abalance FROM pgbench_accounts WHERE aid = ?');
    return async () => {
      await select.all([t.random.int(1, 100000 * t.scale)]);
    };
  },
  'tpcb-like': async (c, t) => {
    const [ua, sa, ut, ub, ih] = await Promise.all([1, 2, 3, 4, 5].map(() => c.prepare('x')));
    return async () => {
      const aid = t.random.int(1, 100000 * t.scale);
      const bid = t.random.int(1, t.scale);
      const tid = t.random.int(1, 10 * t.scale);
      const delta = t.random.int(-5000, 5000);
      await c.begin();
      await ua.run([delta, aid]);
      await sa.all([aid]);
      await ut.run([delta, tid]);
      await ub.run([delta, bid]);
      await ih.run([tid, bid, aid, delta]);
      await c.commit();
    };
  },
};

async function measure(run) {
  const n = Number(values.transactions);
  for (let i = 0; i < 20000; i++) await run(); // warm the JIT
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await run();
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / n; // ns per transaction
}

for (const name of ['select-only', 'tpcb-like']) {
  for (let round = 1; round <= Number(values.rounds); round++) {
    const hand = await measure(await handCoded[name](conn, terminal(1)));
    const script = await measure(await scriptTransaction(compileScript(name, BUILTIN_SCRIPTS[name]), 1, new Map()).prepare(conn, terminal(1)));
    console.log(
      `${name.padEnd(12)} round ${round}: hand-coded ${(hand / 1000).toFixed(2)} us/tx, interpreter ${(script / 1000).toFixed(2)} us/tx, difference ${((script - hand) / 1000).toFixed(2)} us/tx`,
    );
  }
}
