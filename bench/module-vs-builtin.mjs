#!/usr/bin/env node
// Client CPU per transaction of a workload module against the same transaction built in: the
// chain example (examples/chain.ts, every statement prepared) against `chain --statements
// prepared`, back to back on the same DBMS with the same terminals, in the order A B B A so that
// a drift of the machine's load falls on both sides alike. Both sides have the same schema: the
// example declares the built-in's foreign keys (each unit's insert into operation checks its
// client) and takes statistics after its load as the built-in does. Prints each run and the ratios
// of the sides' client CPU per transaction and tps (module / built-in; 1.00 = no cost of its own).
//
//   node bench/module-vs-builtin.mjs [--db URL] [--clients 2] [--time 5] [--scale 1/1000] [--module FILE]
//
// --module runs another module in the example's place (e.g. an earlier version of it, to see what
// a change of its schema did).
//
// Without --db each side gets a SQLite file of its own in a temporary folder (SQLite runs inside
// the client, so its work is in both sides' figures). With --db give a database of your own: both
// sides use the chain's table names there, and each side loads its data before its runs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { headroom } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    clients: { type: 'string', default: '2' },
    time: { type: 'string', default: '5' },
    scale: { type: 'string', default: '1/1000' },
    module: { type: 'string' },
  },
});
const MODULE = values.module ? path.resolve(values.module) : fileURLToPath(new URL('../examples/chain.ts', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'headroom-module-vs-builtin-'));
const sides = {
  'built-in chain': { workload: 'chain', extra: ['--statements', 'prepared'], db: values.db ?? `sqlite:${path.join(work, 'builtin.db')}` },
  'chain module': { workload: MODULE, extra: [], db: values.db ?? `sqlite:${path.join(work, 'module.db')}` },
};
const perTransaction = { 'built-in chain': [], 'chain module': [] };
const tps = { 'built-in chain': [], 'chain module': [] };
try {
  let n = 0;
  for (const name of ['built-in chain', 'chain module', 'chain module', 'built-in chain']) {
    const side = sides[name];
    // On a shared server database the sides' tables are the same: each run loads its own side's data.
    if (values.db || perTransaction[name].length === 0) headroom(['init', side.workload, '--db', side.db, '-s', values.scale]);
    const out = path.join(work, `run-${++n}.json`);
    headroom([
      'run',
      side.workload,
      ...side.extra,
      '--db',
      side.db,
      '-c',
      values.clients,
      '-T',
      values.time,
      '-P',
      '0',
      '--observe=false',
      '--max-tries',
      '10',
      '-o',
      out,
    ]);
    const { summary } = JSON.parse(readFileSync(out, 'utf8'));
    perTransaction[name].push(summary.clientCpu.usPerTransaction);
    tps[name].push(summary.tps);
    console.log(
      `${name.padEnd(15)} ${summary.transactions} transactions, ${summary.tps.toFixed(1)} tps, client CPU ${summary.clientCpu.usPerTransaction.toFixed(1)} us per transaction`,
    );
  }
  const mean = (list) => list.reduce((a, b) => a + b, 0) / list.length;
  const builtIn = mean(perTransaction['built-in chain']);
  const module = mean(perTransaction['chain module']);
  console.log(
    `client CPU per transaction: module ${module.toFixed(1)} us, built-in ${builtIn.toFixed(1)} us; ratio module / built-in = ${(module / builtIn).toFixed(2)}`,
  );
  const moduleTps = mean(tps['chain module']);
  const builtInTps = mean(tps['built-in chain']);
  console.log(`tps: module ${moduleTps.toFixed(1)}, built-in ${builtInTps.toFixed(1)}; ratio module / built-in = ${(moduleTps / builtInTps).toFixed(2)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
