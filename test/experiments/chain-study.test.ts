import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChainStudyRow } from '../../src/experiments/chain-study.js';
import type { ExperimentResult } from '../../src/result/experiment-result.js';
import { createDriver } from '../helpers/drivers.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

function workdir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-chain-study-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("experiment chain-study (sqlite): the study's distributed runs, then the localized sweep, with the Total time table", async (t) => {
  const dir = workdir(t);
  const out = path.join(dir, 'cs.json');
  const run = await runCli([
    'experiment',
    'chain-study',
    '--db',
    `sqlite:${path.join(dir, 'c.db')}`,
    '-s',
    '1/5000',
    '-c',
    '2',
    '--runs',
    '2',
    '--localized-max',
    '20',
    '-o',
    out,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(out, 'utf8')) as ExperimentResult<ChainStudyRow>;
  assert.deepEqual(
    result.rows.map((r) => [r.run, r.terminals, r.unitsPerTerminal]),
    [
      ['distributed 1', 2, 333],
      ['distributed 2', 2, 333],
      // One batch (667 clients) / 33 / terminals, at least one.
      ['localized 10', 10, 2],
      ['localized 20', 20, 1],
    ],
  );
  assert.ok(result.rows.every((r) => r.statements === 'study' && r.transactions === r.terminals * r.unitsPerTerminal && r.totalMs !== null));
  assert.deepEqual(
    result.runs.map((r) => r.config.workloadOptions['mode']),
    ['distributed', 'distributed', 'localized', 'localized'],
  );
  assert.match(run.stdout, /^statements\s+run\s+terminals\s+units each\s+Total time ms\s+ms\/tr\s+tr\/sec\s+tps/m);
  assert.match(run.stdout, /^study\s+distributed 1\s+2\s+333\s+\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+/m);
});

test('experiment chain-study (postgres) --statements both: each style from an empty operation table, planning sampled per run', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const out = path.join(workdir(t), 'cs.json');
  // A password the trusting test server does not ask for: it must not reach the file.
  const url = db.url.replace('://postgres@', '://postgres:chain-secret@');
  assert.notEqual(url, db.url);
  const run = await runCli([
    'experiment',
    'chain-study',
    '--db',
    url,
    '-s',
    '1/5000',
    '-c',
    '2',
    '--runs',
    '1',
    '--localized-max',
    '10',
    '--statements',
    'both',
    '-o',
    out,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(out, 'utf8')) as ExperimentResult<ChainStudyRow>;
  assert.deepEqual(
    result.rows.map((r) => `${r.statements} ${r.run}`),
    ['study distributed 1', 'study localized 10', 'prepared distributed 1', 'prepared localized 10'],
  );
  // Each run records the experiment's own command line, its password hidden.
  for (const r of result.runs) {
    assert.equal(r.config.verb, 'experiment chain-study');
    assert.deepEqual(r.config.argv.slice(0, 2), ['--db', url.replace(':chain-secret@', ':***@')]);
  }
  assert.doesNotMatch(readFileSync(out, 'utf8'), /chain-secret/);
  const study = result.rows[0]!;
  const prepared = result.rows[2]!;
  assert.ok(study.planningMsPerUnit! > 5 * prepared.planningMsPerUnit!, `${study.planningMsPerUnit} against ${prepared.planningMsPerUnit} ms`);
  assert.deepEqual(
    result.runs.map((r) => r.config.statements?.style),
    ['study', 'study', 'prepared', 'prepared'],
  );
  // Emptied before the prepared sequence: what is left is that sequence's operations alone.
  const driver = createDriver(db.target);
  const conn = await driver.connect();
  try {
    const [[left]] = (await conn.query('SELECT count(*)::int FROM operation')) as [[number]];
    assert.equal(left, result.rows[2]!.transactions + result.rows[3]!.transactions);
  } finally {
    await conn.close();
  }
});
