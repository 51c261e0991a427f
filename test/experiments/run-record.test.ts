import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExperimentResult } from '../../src/result/experiment-result.js';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

// An experiment's steps are measured by the same pipeline as headroom run (src/session/measure.ts):
// each step's run result records what a run's records, protocol and perCommand included.
test('sqlite: an experiment step records its config like headroom run, protocol and perCommand included', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-run-record-'));
  t.after(async () => {
    rmSync(folder, { recursive: true, force: true });
    await db.dispose();
  });
  const runFile = path.join(folder, 'run.json');
  const run = await runCli(['run', 'tpcb', '--db', db.url, '-s', '1', '-c', '1', '-T', '1', '--observe=false', '-o', runFile]);
  assert.equal(run.code, 0, run.stderr);
  const experimentFile = path.join(folder, 'growth.json');
  const experiment = await runCli([
    'experiment',
    'growth',
    '--db',
    db.url,
    '--workload',
    'tpcb',
    '-s',
    '1',
    '-c',
    '1',
    '-T',
    '1',
    '--observe=false',
    '-o',
    experimentFile,
  ]);
  assert.equal(experiment.code, 0, experiment.stderr);

  const single = JSON.parse(readFileSync(runFile, 'utf8')) as RunResult;
  const growth = JSON.parse(readFileSync(experimentFile, 'utf8')) as ExperimentResult<unknown>;
  assert.equal(growth.runs.length, 1);
  const step = growth.runs[0]!;
  // tpcb honours --protocol: both record the one they sent, headroom run's default.
  assert.equal(single.config.protocol, 'prepared');
  assert.equal(step.config.protocol, 'prepared');
  assert.equal(single.config.perCommand, false);
  assert.equal(step.config.perCommand, false);
  // No field of a run's config is missing from an experiment's step, nor the other way round, but
  // the step's verb: the command its argv follows, which for a run goes without saying.
  assert.equal(step.config.verb, 'experiment growth');
  assert.equal(single.config.verb, undefined);
  assert.deepEqual(Object.keys(step.config).sort(), [...Object.keys(single.config), 'verb'].sort());
  assert.deepEqual(Object.keys(step).sort(), Object.keys(single).sort());
});
