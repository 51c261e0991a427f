import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'node:test';
import type { DbmsName } from '../../src/drivers/driver.js';
import type { ExperimentResult } from '../../src/experiments/experiment-result.js';
import type { RunResult } from '../../src/result/result.js';
import type { SweepResult } from '../../src/result/sweep.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

/** ticket-booking's load() reads --seats (default 500); its transactions read --hot-shows only. */
const BOOKING = fileURLToPath(new URL('../../../examples/ticket-booking.ts', import.meta.url));

const ON: readonly DbmsName[] = ['sqlite', 'postgres'];

for (const dbms of ON) {
  test(`data options on ${dbms}: a sweep and experiment growth take the options the module's load recorded`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-data-options-'));
    t.after(async () => {
      rmSync(folder, { recursive: true, force: true });
      await db.dispose();
    });
    const cli = (args: string[]) => runCli([...args, '--db', db.url], { cwd: folder });
    const read = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

    const init = await cli(['init', BOOKING, '-s', '1', '--seats', '10']);
    assert.equal(init.code, 0, init.stderr);

    // A sweep without --seats measures the data as loaded: every step says seats 10, not the default 500.
    const sweepFile = path.join(folder, 'sweep.json');
    const sweep = await cli(['run', BOOKING, '-c', '1,2', '-T', '1', '-P', '0', '-o', sweepFile]);
    assert.equal(sweep.code, 0, sweep.stderr);
    const steps = read<SweepResult>(sweepFile).steps;
    assert.equal(steps.length, 2);
    for (const step of steps) {
      assert.deepEqual(step.data.options, { seats: 10 });
      assert.equal(step.config.workloadOptions['seats'], 10);
      assert.equal(step.data.loadedBy, 'earlier');
    }

    // A sweep given another --seats than the data's is refused before its first step, in one line.
    const otherFile = path.join(folder, 'other.json');
    const refused = await cli(['run', BOOKING, '-c', '1,2', '-T', '1', '-P', '0', '--seats', '20', '-o', otherFile]);
    assert.notEqual(refused.code, 0, 'a sweep measured seats 10 data as seats 20');
    assert.match(
      refused.stderr,
      /^headroom: the ticket-booking data in \S+ was loaded with --seats 10, not --seats 20 \(omit --seats to use it, .*headroom init \S+ -s 1 --seats 20\)$/m,
    );
    assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
    assert.equal(existsSync(otherFile), false, 'no sweep file for a refused sweep');

    // experiment growth loads at every size: each step's run records the options that load recorded.
    const growthFile = path.join(folder, 'growth.json');
    const growth = await cli([
      'experiment',
      'growth',
      '--workload',
      BOOKING,
      '-s',
      '1,2',
      '--seats',
      '12',
      '-c',
      '2',
      '-T',
      '1',
      '--observe=false',
      '-o',
      growthFile,
    ]);
    assert.equal(growth.code, 0, growth.stderr);
    const runs = read<ExperimentResult<unknown>>(growthFile).runs;
    assert.equal(runs.length, 2);
    for (const run of runs as RunResult[]) {
      assert.deepEqual(run.data.options, { seats: 12 });
      assert.equal(run.data.loadedBy, 'this-run');
    }
    // The same record as a run's for a built-in too: how chain's data was loaded.
    const chainFile = path.join(folder, 'growth-chain.json');
    const chain = await cli(['experiment', 'growth', '--workload', 'chain', '-s', '1/1000', '-c', '1', '-T', '1', '--observe=false', '-o', chainFile]);
    assert.equal(chain.code, 0, chain.stderr);
    assert.deepEqual(
      (read<ExperimentResult<unknown>>(chainFile).runs as RunResult[]).map((run) => run.data.loadMode),
      ['bulk'],
    );

    // And the data left behind is seats 12: a later sweep takes that.
    const after = await cli(['run', BOOKING, '-c', '1,2', '-T', '1', '-P', '0', '-o', sweepFile]);
    assert.equal(after.code, 0, after.stderr);
    for (const step of read<SweepResult>(sweepFile).steps) assert.deepEqual(step.data.options, { seats: 12 });
  });
}
