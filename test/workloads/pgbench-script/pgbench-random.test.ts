import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { compile } from '../../../src/workloads/pgbench-script/compile.js';
import { parseExpression } from '../../../src/workloads/pgbench-script/expr-parser.js';
import { Variables, type Frame } from '../../../src/workloads/pgbench-script/frame.js';
import { clientRandom, clientSeeds } from '../../../src/workloads/pgbench-script/pg-random.js';
import { valueText } from '../../../src/workloads/pgbench-script/value.js';
import type { ServerTarget } from '../../../src/config/target.js';
import { runCli } from '../../helpers/cli.js';
import { freshDatabase } from '../../helpers/databases.js';
import { skipOrFail } from '../../helpers/skip-or-fail.js';

/**
 * The same --random-seed must draw the same values as pgbench 15, in every client, whatever -j:
 * pgbench seeds one generator per client from its base sequence (seeded with --random-seed), then
 * draws default_seed from it.
 */
const EXPRESSIONS = [
  'random(1, 1000000)',
  'random_exponential(1, 1000, 2.5)',
  'random_gaussian(1, 1000, 2.0)',
  'random_zipfian(1, 1000, 1.5)',
  'random_zipfian(-5, 10000000, 1.001)',
  'random(0, 10000000000000)',
  'random(-1000000000000000000, 1000000000000000000)',
  'random_exponential(-100, 100, 0.001)',
  'hash(:client_id)',
  ':default_seed',
];

/** The same expressions as a pgbench script; each line's debug() prints its value on stderr, the client's id first. */
const SCRIPT = ['\\set c debug(:client_id)', ...EXPRESSIONS.map((e, i) => `\\set v${i} debug(${e})`), 'SELECT 1;', ''].join('\n');

/**
 * Per client, one line per transaction: client id, then the expressions' values. Produced by
 *   pgbench -n -f SCRIPT -t 3 -c 3 -j 1 --random-seed SEED 2>&1 | grep debug
 * with pgbench 15.20 (its values grouped per client and transaction).
 */
const PGBENCH_15: Record<number, string[]> = {
  42: [
    '0 668251 553 373 12 5744 5191816854317 -357510895726657138 70 8305006632492910235 1183949725203728575',
    '0 597690 23 476 13 1337805 889819803803 152522619357546902 99 8305006632492910235 1183949725203728575',
    '0 77327 608 795 33 152 5785422668263 -845898292580089455 49 8305006632492910235 1183949725203728575',
    '1 844242 337 188 1 7343283 5013907562750 -106913388566715034 -47 -6236344168346690114 1183949725203728575',
    '1 825174 272 358 1 -5 2427585347286 510115925582166834 -29 -6236344168346690114 1183949725203728575',
    '1 295500 788 518 1 2019 6532395495505 18057899611457141 -82 -6236344168346690114 1183949725203728575',
    '2 802035 56 657 1 8151592 9070682529946 -116172037686289198 0 -887538584557160677 1183949725203728575',
    '2 487316 253 73 1 847 8709854411687 513604006985833735 -26 -887538584557160677 1183949725203728575',
    '2 747596 247 844 1 2185577 3575111467421 549248494963408584 -99 -887538584557160677 1183949725203728575',
  ],
  // A seed above 2^32: its high half counts too.
  1099511627783: [
    '0 97712 183 640 32 -1 788902565597 110365718658393626 -82 3196482941097363929 -3921988818127419996',
    '0 359304 422 510 1 13 8402086907625 747343415410836535 70 3196482941097363929 -3921988818127419996',
    '0 696149 254 555 51 2 618527725757 -73041806516398386 -47 3196482941097363929 -3921988818127419996',
    '1 474532 24 748 1 146267 927679293920 473009224685135765 -12 2838447142080478456 -3921988818127419996',
    '1 574880 86 267 5 81018 8447060466022 45012998217467342 48 2838447142080478456 -3921988818127419996',
    '1 344731 581 734 1 140 5264513827756 -541394858661140200 52 2838447142080478456 -3921988818127419996',
    '2 776949 477 422 1 130 2579015218407 -766220838769720984 -78 9098649471627846471 -3921988818127419996',
    '2 82007 266 466 1 6269 1388508269885 457234985747960528 51 9098649471627846471 -3921988818127419996',
    '2 159974 342 648 1 1089 1643366400349 510928122318160010 -51 9098649471627846471 -3921988818127419996',
  ],
};

/** What headroom's interpreter draws for each client of a run of `clients`, `transactions` times over. */
function headroomDraws(seed: number, clients: number, transactions: number): string[] {
  const lines: string[] = [];
  const { defaultSeed } = clientSeeds(seed, clients);
  for (let client = 0; client < clients; client++) {
    const variables = new Variables();
    const compiled = EXPRESSIONS.map((e) => compile(parseExpression(e), variables));
    const frame: Frame = { vars: [], random: clientRandom(seed, client, clients), command: 0, debug: () => {} };
    frame.vars[variables.slot('client_id')] = client;
    frame.vars[variables.slot('default_seed')] = defaultSeed;
    for (let t = 0; t < transactions; t++) lines.push([client, ...compiled.map((c) => valueText(c(frame)!))].join(' '));
  }
  return lines;
}

test('random(), random_exponential/gaussian/zipfian, hash() and default_seed draw what pgbench 15 draws for the same seed', () => {
  for (const [seed, expected] of Object.entries(PGBENCH_15)) assert.deepEqual(headroomDraws(Number(seed), 3, 3), expected, `--random-seed ${seed}`);
});

test("a client's stream replays after restore(), as the terminal's retry of a transaction needs", () => {
  const random = clientRandom(7, 1, 4);
  const state = random.save();
  const first = [random.float(), random.offset(1e6), random.uint32()];
  random.restore(state);
  assert.deepEqual([random.float(), random.offset(1e6), random.uint32()], first);
});

const folder = mkdtempSync(path.join(tmpdir(), 'headroom-pgbench-random-'));
test.after(() => rmSync(folder, { recursive: true, force: true }));

/**
 * debug() values by command, each command's values sorted: pgbench and headroom print the same
 * line (debug(script=0,command=N): TYPE VALUE), and under -j 2 the worker threads' lines
 * interleave, so the values are compared per command across all clients (the per-client
 * streams themselves are compared above, without a run).
 */
function valuesByCommand(stderr: string): string[] {
  const byCommand = new Map<number, string[]>();
  for (const m of stderr.matchAll(/^debug\(script=0,command=(\d+)\): \w+ (\S+)$/gm)) {
    const values = byCommand.get(Number(m[1])) ?? [];
    values.push(m[2]!);
    byCommand.set(Number(m[1]), values);
  }
  return [...byCommand.keys()].sort((a, b) => a - b).map((command) => `${command}: ${byCommand.get(command)!.sort().join(' ')}`);
}

test('live: pgbench -j 1 and headroom -j 2 (worker jobs) print the same values for each command for the same seed', async (t) => {
  if (!existsSync('/usr/bin/pgbench') && skipOrFail(t, 'pgbench is not installed (apt-get install postgresql-contrib, or scripts/services.sh)')) return;
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  try {
    const file = path.join(folder, 'draws.sql');
    writeFileSync(file, SCRIPT);
    const target = db.target as ServerTarget;
    const seed = '987654321';
    const connection = ['-h', target.host, '-p', String(target.port), '-U', target.user];
    const pg = await promisify(execFile)('pgbench', [...connection, '-n', '-f', file, '-t', '4', '-c', '3', '-j', '1', '--random-seed', seed, target.database]);
    const expected = valuesByCommand(pg.stderr);
    assert.equal(expected.length, EXPRESSIONS.length + 1, pg.stderr);
    const sqlite = `sqlite:${path.join(folder, 'draws.db')}`;
    const out = path.join(folder, 'draws.json');
    const run = await runCli(
      ['run', 'tpcb', '--db', sqlite, '-f', file, '-t', '4', '-c', '3', '-j', '2', '--seed', seed].concat(['-P', '0', '--observe=false', '--out', out]),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(valuesByCommand(run.stderr), expected);
  } finally {
    await db.dispose();
  }
});
