import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';

test('a run on data loaded earlier names how it was loaded, not the --load default', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-chain-summary-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = `sqlite:${path.join(dir, 'chain.db')}`;
  const init = await runCli(['init', 'chain', '--db', db, '-s', '0.0001', '--load', 'faithful']);
  assert.equal(init.code, 0, init.stderr);
  const run = await runCli(['run', 'chain', '--db', db, '-t', '5', '-P', '0', '--observe=false', '--out', path.join(dir, 'r.json')]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^data: faithful load, earlier$/m);
  assert.doesNotMatch(run.stdout, /^workload: chain.*load: bulk/m);
  assert.match(run.stdout, /^workload: chain \(.*mode: distributed/m);
});
