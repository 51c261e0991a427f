#!/usr/bin/env node
// Start-up CPU: what a command costs before (and around) its first transaction, which every short
// run pays (-t 100, smoke tests, the test suite's CLI runs). Runs, alternating round by round so
// that the machine's drift falls on all alike: `node -e 0` (Node.js alone), `headroom --version`,
// `headroom pgbench -t 1` and `pgbench -t 1` against the same PostgreSQL database, and with
// --before BIN the same two headroom commands from another build's bin (a checkout's
// dist/bundle/code/bin.js or dist/src/cli/bin.js) to set a change against. Prints each command's
// median, mean and lowest CPU (user + system of the whole process, bash's `times`).
// Not a test: run it on a quiet machine; single runs move by 20-40 ms here.
//
//   node bench/startup.mjs [--rounds 30] [--before BIN] [--db headroom_startup]
//        [--host 127.0.0.1] [--port 5432] [--user postgres] [--pgbench /usr/lib/postgresql/15/bin/pgbench]
//
// The database is created when missing, initialised once with `pgbench -i -s 1`, and dropped at
// the end (also after a failure); one that was there before is left as it was.
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { printTimingNote, timed } from './timed.mjs';
import { HEADROOM_CLI } from './lib/headroom-cli.mjs';
import { median } from './lib/median.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '30' },
    before: { type: 'string' },
    db: { type: 'string', default: 'headroom_startup' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '5432' },
    user: { type: 'string', default: 'postgres' },
    pgbench: { type: 'string', default: '/usr/lib/postgresql/15/bin/pgbench' },
  },
});
const connection = ['-h', values.host, '-p', values.port, '-U', values.user];
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds ${values.rounds}: give a whole number of rounds, 1 or more`);

const exists = execFileSync('psql', [...connection, '-d', 'postgres', '-tAc', `SELECT 1 FROM pg_database WHERE datname = '${values.db}'`], {
  encoding: 'utf8',
}).trim();
const created = exists !== '1';
const dropCreated = () => {
  if (created) execFileSync('dropdb', [...connection, '--if-exists', values.db]);
};
if (created) {
  execFileSync('createdb', [...connection, values.db]);
  try {
    execFileSync(values.pgbench, [...connection, '-i', '-q', '-s', '1', values.db], { stdio: 'ignore' });
  } catch (error) {
    dropCreated();
    throw error;
  }
}

const commands = [
  { name: 'node -e 0', command: process.execPath, args: ['-e', '0'] },
  { name: 'headroom --version', command: process.execPath, args: [HEADROOM_CLI, '--version'] },
  { name: 'headroom pgbench -t 1', command: process.execPath, args: [HEADROOM_CLI, 'pgbench', ...connection, '-t', '1', values.db] },
  ...(values.before
    ? [
        { name: 'before: headroom --version', command: process.execPath, args: [values.before, '--version'] },
        { name: 'before: headroom pgbench -t 1', command: process.execPath, args: [values.before, 'pgbench', ...connection, '-t', '1', values.db] },
      ]
    : []),
  { name: 'pgbench -t 1', command: values.pgbench, args: [...connection, '-t', '1', values.db] },
];

printTimingNote();
const cpu = commands.map(() => []);
try {
  for (let round = 0; round < rounds; round++) {
    for (const [i, { command, args }] of commands.entries()) cpu[i].push((await timed(command, args, { DATABASE_URL: '' })).cpuSeconds * 1000);
  }
} finally {
  dropCreated();
}

console.log(`CPU ms per command, ${rounds} alternating rounds:`);
console.log(`${'command'.padEnd(32)}${'median'.padStart(8)}${'mean'.padStart(8)}${'lowest'.padStart(8)}`);
for (const [i, { name }] of commands.entries()) {
  const sorted = [...cpu[i]].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  console.log(`${name.padEnd(32)}${median(sorted).toFixed(0).padStart(8)}${mean.toFixed(0).padStart(8)}${sorted[0].toFixed(0).padStart(8)}`);
}
