#!/usr/bin/env node
// Side by side, in one run: headroom's default chain run (--statements study) and a JDBC program
// that sends the model unit the way the study's program did (bench/chain-jdbc/ChainJdbc.java,
// pgJDBC and MariaDB Connector/J 2.x), on the same 1/100 chain data loaded by headroom, on
// PostgreSQL and on MariaDB, at 8 and 33 terminals. Both print the study's Total time line (from
// before the first terminal connects, terminals started 10 ms apart) and run the same units per
// terminal from the same distributed generator offsets. Prints each side's tr/s and client CPU per
// unit, each program's MariaDB/PostgreSQL ratio, and whether headroom's ratio is within 15% of the
// JDBC program's (medians over --rounds). Not a test: the JVM's start and JIT warm-up are inside the JDBC program's Total
// time, so keep --units large enough (a few thousand) for that to fade.
//
// --pin runs the client program (headroom, or the JVM) on one CPU and both servers on the others
// (--cpus CLIENT:SERVERS, default 0:1), so that a client that needs more CPU per unit cannot take
// the servers' share: each program's MariaDB/PostgreSQL ratio is then the servers' own, unless its
// client is the bottleneck, which the `client busy` column (client CPU over wall time, of one CPU
// when pinned) shows. The servers must run on this machine (taskset); their affinity is put back
// afterwards, also on Ctrl-C. While pinned, every new PostgreSQL backend, anyone's, gets the servers' CPUs.
//
// Every run starts from the same data: operation is emptied (its ids restarted) before each, so
// that neither program meets a table the other grew. On a PostgreSQL that never analyzes operation
// (autovacuum off, as this machine's test server runs), the plan of the latest-operations join
// flips near 100,000 rows to a backward scan of operation's primary key, 20x slower per unit:
// without the reset, whichever program ran later met it. --grow keeps the table growing from run
// to run, as the study's runs did.
//
//   node bench/chain-vs-jdbc.mjs [--pg postgres://postgres@127.0.0.1:5432/headroom_chain_jdbc]
//        [--maria mariadb://root@127.0.0.1:3306/headroom_chain_jdbc] [--scale 1/100]
//        [--terminals 8,33] [--units 33333] [--rounds 1] [--prepared] [--grow] [--keep] [--pin [--cpus 0:1]]
//
// Needs java and javac (apt-get install openjdk-17-jdk-headless) and Debian's JDBC drivers
// (apt-get install libpostgresql-jdbc-java libmariadb-java), or CHAIN_JDBC_CLASSPATH naming both jars.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HEADROOM_CLI as CLI, headroom } from './lib/headroom-cli.mjs';
import { pinServers, serverProcess } from './lib/pin-cpus.mjs';
import { printTimingNote, timed } from './timed.mjs';

const { values } = parseArgs({
  options: {
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/headroom_chain_jdbc' },
    maria: { type: 'string', default: 'mariadb://root@127.0.0.1:3306/headroom_chain_jdbc' },
    scale: { type: 'string', default: '1/100' },
    terminals: { type: 'string', default: '8,33' },
    // The study's units per run at 1/100 (3,333,333 / 100): enough for the JVM's start and JIT to fade.
    units: { type: 'string', default: '33333' },
    rounds: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    grow: { type: 'boolean', default: false },
    // Also headroom --statements prepared, the improvement, beside the two study-style programs.
    prepared: { type: 'boolean', default: false },
    pin: { type: 'boolean', default: false },
    cpus: { type: 'string', default: '0:1' },
  },
});

const [clientCpus, serverCpus] = values.cpus.split(':');
if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(clientCpus ?? '') || !/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(serverCpus ?? '')) {
  console.error(`chain-vs-jdbc: --cpus ${values.cpus} is not CLIENT:SERVERS as taskset lists CPUs (e.g. 0:1 or 0:1-3)`);
  process.exit(2);
}
/** The client program's command line: under taskset when pinned. */
const pinned = (command, args) => (values.pin ? ['taskset', ['-c', clientCpus, command, ...args]] : [command, args]);

const JARS = { postgres: '/usr/share/java/postgresql.jar', mariadb: '/usr/share/java/mariadb-java-client.jar' };
const SOURCE = fileURLToPath(new URL('./chain-jdbc/ChainJdbc.java', import.meta.url));

/** What this bench needs that the machine lacks, each with how to get it. */
function missing() {
  const problems = [];
  const has = (command) => spawnSync(command, ['-version'], { stdio: 'ignore' }).status === 0;
  if (!has('java') || !has('javac')) problems.push('java and javac (apt-get install openjdk-17-jdk-headless)');
  if (!process.env.CHAIN_JDBC_CLASSPATH) {
    if (!existsSync(JARS.postgres)) problems.push(`${JARS.postgres} (apt-get install libpostgresql-jdbc-java)`);
    if (!existsSync(JARS.mariadb)) problems.push(`${JARS.mariadb} (apt-get install libmariadb-java)`);
  }
  if (!existsSync(CLI)) problems.push('dist/ (build headroom first: npx tsc -p tsconfig.json)');
  return problems;
}

const problems = missing();
if (problems.length > 0) {
  console.error(`chain-vs-jdbc: missing ${problems.join('; ')}`);
  process.exit(2);
}

const { chainSizes, parseChainScale } = await import(new URL('../dist/src/workloads/chain/sizes.js', import.meta.url).href);
const clientCount = chainSizes(parseChainScale(values.scale)).clientsPerBatch;
const work = mkdtempSync(path.join(tmpdir(), 'headroom-chain-jdbc-'));
const classpath = [work, process.env.CHAIN_JDBC_CLASSPATH ?? `${JARS.postgres}:${JARS.mariadb}`].join(':');

/** The JDBC URL of a headroom --db URL (trust / empty-password servers, as in this project's tests). */
function jdbcUrl(db) {
  const url = new URL(db);
  const kind = url.protocol === 'postgres:' || url.protocol === 'postgresql:' ? 'postgresql' : 'mariadb';
  const user = decodeURIComponent(url.username || (kind === 'postgresql' ? 'postgres' : 'root'));
  const password = url.password ? `&password=${url.password}` : '';
  return `jdbc:${kind}://${url.hostname}:${url.port || (kind === 'postgresql' ? 5432 : 3306)}${url.pathname}?user=${encodeURIComponent(user)}${password}`;
}

/**
 * Runs SQL statements through psql or mariadb as the URL's user, in `database` (the URL's own when
 * not given; on PostgreSQL the postgres database when null, for CREATE and DROP DATABASE).
 */
function sqlRunner(db, database = new URL(db).pathname.slice(1)) {
  const url = new URL(db);
  if (url.protocol.startsWith('postgres')) {
    const user = decodeURIComponent(url.username || 'postgres');
    const args = ['-h', url.hostname, '-p', url.port || '5432', '-U', user, '-d', database ?? 'postgres', '-v', 'ON_ERROR_STOP=1', '-q'];
    return (...statements) => execFileSync('psql', [...args, ...statements.flatMap((sql) => ['-c', sql])], { stdio: 'pipe' });
  }
  const args = [
    '--protocol=tcp',
    '-h',
    url.hostname,
    '-P',
    url.port || '3306',
    '-u',
    decodeURIComponent(url.username || 'root'),
    ...(database ? [database] : []),
  ];
  return (...statements) => execFileSync('mariadb', [...args, '-e', statements.join('; ')], { stdio: 'pipe' });
}

function recreateDatabase(db) {
  const name = new URL(db).pathname.slice(1);
  if (!/^\w+$/.test(name)) throw new Error(`database name "${name}" must be letters, digits and _`);
  const run = sqlRunner(db, null);
  const postgres = db.startsWith('postgres');
  return (sql) => run(postgres ? sql.replace('%', name) : sql.replace('%', name).replace(' WITH (FORCE)', ''));
}

/** Empties operation and restarts its ids, so that the next run meets the data the load left. */
function emptyOperation(db) {
  if (db.startsWith('postgres')) sqlRunner(db)('TRUNCATE operation RESTART IDENTITY', 'CHECKPOINT');
  else sqlRunner(db)('TRUNCATE TABLE operation');
}

async function runHeadroom(db, terminals, perTerminal, style = 'study') {
  const out = path.join(work, `headroom-${Date.now()}.json`);
  const args = ['run', 'chain', '--db', db, '--statements', style, '-c', String(terminals), '-t', String(perTerminal), '-P', '0', '-o', out];
  const started = performance.now();
  const r = await timed(...pinned(process.execPath, [CLI, ...args]));
  const wallSeconds = (performance.now() - started) / 1000;
  const s = JSON.parse(readFileSync(out, 'utf8')).summary;
  if (!s.totalTime) throw new Error('headroom wrote no Total time');
  return {
    trPerSec: s.totalTime.trPerSec,
    units: s.transactions,
    failed: s.failed,
    cpuMs: (r.cpuSeconds * 1000) / (s.transactions + s.failed),
    busy: r.cpuSeconds / wallSeconds,
    planning: s.planning,
  };
}

async function runJdbc(db, terminals, perTerminal) {
  const started = performance.now();
  const r = await timed(...pinned('java', ['-cp', classpath, 'ChainJdbc', jdbcUrl(db), String(terminals), String(perTerminal), String(clientCount)]));
  const wallSeconds = (performance.now() - started) / 1000;
  const total = /Total time: (\d+) ms = [\d.]+ ms\/tr = ([\d.]+) tr\/sec/.exec(r.output);
  const counts = /units (\d+) failed (\d+)/.exec(r.output);
  if (!total || !counts) throw new Error(`no Total time line in ChainJdbc's output:\n${r.output}`);
  const [units, failed] = [Number(counts[1]), Number(counts[2])];
  return { trPerSec: Number(total[2]), units, failed, cpuMs: (r.cpuSeconds * 1000) / (units + failed), busy: r.cpuSeconds / wallSeconds };
}

/** The server's process on this machine: PostgreSQL's postmaster (its children go with it), MariaDB's mariadbd (its threads). */
function serverOf(dbms, db) {
  const url = new URL(db);
  if (dbms === 'postgres') {
    const user = decodeURIComponent(url.username || 'postgres');
    const folder = execFileSync('psql', ['-h', url.hostname, '-p', url.port || '5432', '-U', user, '-d', 'postgres', '-Atc', 'SHOW data_directory'], {
      encoding: 'utf8',
    }).trim();
    return serverProcess('PostgreSQL', Number(readFileSync(path.join(folder, 'postmaster.pid'), 'utf8').split('\n')[0]), 'children');
  }
  const args = [
    '--protocol=tcp',
    '-h',
    url.hostname,
    '-P',
    url.port || '3306',
    '-u',
    decodeURIComponent(url.username || 'root'),
    '-N',
    '-e',
    'SELECT @@pid_file',
  ];
  const file = execFileSync('mariadb', args, { encoding: 'utf8' }).trim();
  return serverProcess('MariaDB', Number(readFileSync(file, 'utf8').trim()), 'threads');
}

const sides = { postgres: values.pg, mariadb: values.maria };
const terminalCounts = values.terminals.split(',').map(Number);
const fmt = (n, d = 1) => n.toFixed(d);
let pin;
try {
  console.log(
    `chain at ${values.scale} (${clientCount} clients drawn), ${values.units} units per run, terminals ${values.terminals}, ${values.rounds} round(s)`,
  );
  printTimingNote();
  execFileSync('javac', ['-d', work, SOURCE], { stdio: 'inherit' });
  for (const db of Object.values(sides)) {
    const sql = recreateDatabase(db);
    sql('DROP DATABASE IF EXISTS % WITH (FORCE)');
    sql('CREATE DATABASE %');
    headroom(['init', 'chain', '--db', db, '-s', values.scale]);
  }
  if (values.pin) {
    pin = pinServers(
      Object.entries(sides).map(([dbms, db]) => serverOf(dbms, db)),
      serverCpus,
    );
    console.log(`pinned: client programs on CPU ${clientCpus}, servers on CPU ${serverCpus} (before: ${pin.before}; put back at the end)`);
  } else console.log('not pinned: client programs and servers share every CPU');
  const rows = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const [index, terminals] of terminalCounts.entries()) {
      const perTerminal = Math.max(1, Math.floor(Number(values.units) / terminals));
      const row = { round, terminals };
      for (const [dbms, db] of Object.entries(sides)) {
        // Who goes first alternates from round to round at each terminal count (and between the counts),
        // so that neither always meets the other's leftovers (dirty pages, a longer table) nor the
        // first, colder run after the load.
        const order = (round + index) % 2 === 1 ? ['headroom', 'jdbc'] : ['jdbc', 'headroom'];
        if (values.prepared) order.push('prepared');
        for (const program of order) {
          if (!values.grow) emptyOperation(db);
          const r =
            program === 'jdbc'
              ? await runJdbc(db, terminals, perTerminal)
              : await runHeadroom(db, terminals, perTerminal, program === 'prepared' ? 'prepared' : 'study');
          row[`${program}-${dbms}`] = r;
          console.log(
            `round ${round}, ${terminals} terminals, ${dbms}, ${program}: ${fmt(r.trPerSec)} tr/s (Total time), ${r.units} units, ${r.failed} failed, client CPU ${fmt(r.cpuMs, 3)} ms/unit, client busy ${fmt(r.busy, 2)}`,
          );
        }
      }
      rows.push(row);
    }
  }
  console.log('');
  console.log(
    `terminals  program    PostgreSQL tr/s  MariaDB tr/s  MariaDB/PostgreSQL  client CPU ms/unit (pg, maria)  client busy (pg, maria)${values.pin ? ', of 1 CPU' : ''}`,
  );
  // Medians over the rounds: on a busy machine one run of either program can be off by 2x.
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  for (const terminals of terminalCounts) {
    const mine = rows.filter((row) => row.terminals === terminals);
    const at = (program, dbms, key) => median(mine.map((row) => row[`${program}-${dbms}`][key]));
    const ratio = (program) => at(program, 'mariadb', 'trPerSec') / at(program, 'postgres', 'trPerSec');
    for (const program of ['headroom', 'jdbc', ...(values.prepared ? ['prepared'] : [])]) {
      console.log(
        `${String(terminals).padStart(9)}  ${program.padEnd(9)}  ${fmt(at(program, 'postgres', 'trPerSec')).padStart(15)}  ${fmt(at(program, 'mariadb', 'trPerSec')).padStart(12)}  ` +
          `${fmt(ratio(program), 2).padStart(18)}  ${`${fmt(at(program, 'postgres', 'cpuMs'), 3)}, ${fmt(at(program, 'mariadb', 'cpuMs'), 3)}`.padEnd(31)}  ` +
          `${fmt(at(program, 'postgres', 'busy'), 2)}, ${fmt(at(program, 'mariadb', 'busy'), 2)}`,
      );
    }
    // Round by round, so that the spread the medians hide is seen.
    const each = (program) => mine.map((row) => fmt(row[`${program}-mariadb`].trPerSec / row[`${program}-postgres`].trPerSec, 2)).join(' ');
    console.log(`${' '.repeat(11)}ratios round by round: headroom ${each('headroom')}; jdbc ${each('jdbc')}`);
    const off = ratio('headroom') / ratio('jdbc') - 1;
    console.log(
      `${' '.repeat(11)}headroom's ratio is ${fmt(Math.abs(off) * 100)}% ${off >= 0 ? 'above' : 'below'} the JDBC program's: ${Math.abs(off) <= 0.15 ? 'within' : 'NOT within'} 15%`,
    );
  }
  console.log(values.grow ? 'operation grew from run to run' : 'every run began with operation empty (TRUNCATE before each)');
  console.log(
    `medians over ${values.rounds} round(s)${values.prepared ? "; prepared: headroom --statements prepared (both joins prepared), not the study's sending" : ''}`,
  );
  console.log("tr/s = units * 1000 / Total time (the study's figure); client CPU = the whole process (user + system), start-up included");
  console.log("client busy = client CPU seconds over the program's wall time (1.00 = one CPU kept busy), start-up and exit included");
} finally {
  pin?.restore();
  if (!values.keep) {
    for (const db of Object.values(sides)) {
      try {
        recreateDatabase(db)('DROP DATABASE IF EXISTS % WITH (FORCE)');
      } catch (error) {
        console.error(`cleanup: ${error.message}`);
      }
    }
  }
  rmSync(work, { recursive: true, force: true });
}
