import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'node:test';
import type { ServerTarget } from '../../src/config/target.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { DBMS_UNDER_TEST, freshDatabase } from '../helpers/databases.js';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const BOOKING = path.join(EXAMPLES, 'ticket-booking.ts');
const CHAIN = path.join(EXAMPLES, 'chain.ts');

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

for (const dbms of DBMS_UNDER_TEST) {
  test(`examples on ${dbms}: ticket-booking and chain modules init, run (-j 2), check, plan and drop`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-examples-'));
    t.after(async () => {
      rmSync(folder, { recursive: true, force: true });
      await db.dispose();
    });
    // Firebird's URL carries no password: the CLI takes it from ISC_PASSWORD, as isql does.
    const env = { ...process.env, DATABASE_URL: undefined, ...(dbms === 'firebird' ? { ISC_PASSWORD: (db.target as ServerTarget).password ?? '' } : {}) };
    const cli = (args: string[]) => runCli([...args, '--db', db.url], { cwd: folder, env });

    const init = await cli(['init', BOOKING, '-s', '1', '--seats', '10']);
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stderr, /shows: 100 rows/);
    assert.match(init.stderr, /seats: 1,000 rows/);
    // Contention on 2 hot shows of 10 seats: bookings sell them out, cancellations give seats back.
    const out = path.join(folder, 'booking.json');
    const run = await cli([
      'run',
      BOOKING,
      '--seats',
      '10',
      '--hot-shows',
      '2',
      '-c',
      '4',
      '-j',
      '2',
      '-T',
      '3',
      '-P',
      '0',
      '--max-tries',
      '20',
      '-o',
      out,
      '--threshold',
      'tps>1',
      '--threshold',
      'book:p99<60s',
    ]);
    assert.equal(run.code, 0, `${run.stderr}\n${run.stdout}`);
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    assert.equal(result.status, 'completed');
    assert.equal(result.config.workload, 'ticket-booking');
    assert.deepEqual(result.config.module, { path: BOOKING, sha256: sha256(BOOKING), loadSha256: result.config.module?.loadSha256 });
    assert.match(result.config.module?.loadSha256 ?? '', /^[0-9a-f]{64}$/);
    assert.equal(result.data.loadSha256, result.config.module?.loadSha256, 'the data is what this load() makes');
    // What the data is: the options init's load() read (--hot-shows is the transactions' alone).
    assert.deepEqual(result.data.options, { seats: 10 });
    assert.deepEqual(result.transactions.map((x) => x.name).sort(), ['availability', 'book', 'cancel']);
    const book = result.transactions.find((x) => x.name === 'book')!;
    assert.ok(book.count > 0, 'bookings committed');
    // The hot shows sell out within the run: sold-out bookings end rolled back, as the module says.
    assert.ok((book.rolledBack ?? 0) > 0, `sold-out bookings: ${JSON.stringify(book)}`);
    assert.ok(result.checks && result.checks.length === 4 && result.checks.every((c) => c.ok), JSON.stringify(result.checks));
    assert.deepEqual(
      result.thresholds?.map((x) => x.ok),
      [true, true],
    );
    assert.match(run.stdout, /thresholds: 2 of 2 passed/);
    const check = await cli(['check', BOOKING, '--seats', '10']);
    assert.equal(check.code, 0, check.stderr + check.stdout);
    assert.match(check.stdout, /seats_left matches the free seats/);
    const plan = await runCli(['plan', out], { cwd: folder, env });
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /one ticket sale costs 4 availability \+ 1 book/);
    assert.match(plan.stdout, /required: 23\.15 ticket sales\/s \(2,000,000 a day\)/);
    // The headroom is measured over required, printed with thousands grouped (1,010.19x).
    const figure = (pattern: RegExp): number => Number((plan.stdout.match(pattern)?.[1] ?? 'NaN').replace(/,/g, ''));
    const measured = figure(/([\d,.]+) ticket sales\/s measured/);
    const headroom = figure(/headroom: ([\d,.]+)x/);
    assert.ok(headroom > 1, plan.stdout);
    const required = 2_000_000 / 86_400;
    assert.ok(Math.abs(headroom - measured / required) / headroom < 0.001, `headroom ${headroom}x is ${measured} over ${required}: ${plan.stdout}`);

    const chainOut = path.join(folder, 'chain.json');
    const chain = await cli(['run', CHAIN, '-s', '1/10000', '-c', '2', '-T', '2', '-P', '0', '--max-tries', '20', '-o', chainOut]);
    assert.equal(chain.code, 0, chain.stderr);
    const chainResult = JSON.parse(readFileSync(chainOut, 'utf8')) as RunResult;
    assert.equal(chainResult.data.loadedBy, 'this-run');
    assert.deepEqual(chainResult.data.options, {}, "the chain module's load() reads no option");
    assert.deepEqual(
      chainResult.data.phases.map((p) => p.name),
      ['create tables', 'country', 'city', 'street', 'address', 'client', 'client from 334', 'client from 667', 'analyze', 'check'],
    );
    assert.ok(chainResult.summary.transactions > 0);
    assert.ok(
      chainResult.checks?.every((c) => c.ok),
      JSON.stringify(chainResult.checks),
    );
    for (const module of [BOOKING, CHAIN]) {
      const drop = await cli(['drop', module]);
      assert.equal(drop.code, 0, drop.stderr);
    }
    const after = await cli(['check', BOOKING]);
    assert.notEqual(after.code, 0, 'check after drop finds no data');
  });
}
