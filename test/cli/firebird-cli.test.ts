import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServerTarget } from '../../src/config/target.js';
import type { RunResult } from '../../src/result/result.js';
import { parseJournal } from '../../src/engine/journal.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

/** Each workload through the CLI as a Firebird user would drive it: init, check, run, check, drop. */
const CASES = [
  // --journal: its table is made with Firebird's own CREATE-if-missing (no IF NOT EXISTS in Firebird 3).
  { workload: 'tpcb', scale: '1', run: ['-b', 'tpcb-like', '--journal', 'journal.txt'] },
  { workload: 'chain', scale: '1/5000', run: ['--mode', 'localized'] },
] as const;

for (const { workload, scale, run: runOptions } of CASES) {
  test(`firebird: init, check, run, check and drop ${workload} through the CLI`, async (t) => {
    const db = await freshDatabase(t, 'firebird');
    if (!db) return;
    t.after(() => db.dispose());
    const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-fb-cli-'));
    t.after(() => rmSync(cwd, { recursive: true, force: true }));
    // The URL carries no password: the CLI takes it from ISC_PASSWORD, as isql does.
    assert.doesNotMatch(db.url, /:[^/@]*@/);
    const env = { ...process.env, DATABASE_URL: undefined, ISC_PASSWORD: (db.target as ServerTarget).password ?? '' };
    const cli = (args: string[]) => runCli(args, { cwd, env });

    const init = await cli(['init', workload, '--db', db.url, '-s', scale]);
    assert.equal(init.code, 0, init.stderr);
    const check = await cli(['check', workload, '--db', db.url]);
    assert.equal(check.code, 0, `${check.stdout}${check.stderr}`);

    // Three clients on one branch (tpcb) or on the same clients in the same order (chain localized)
    // conflict on rows: Firebird's update conflicts must be retried, not fail the run.
    const run = await cli(['run', workload, '--db', db.url, '-c', '3', '-t', '20', '--max-tries', '50', '-P', '0', '--out', 'r.json', ...runOptions]);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8')) as RunResult;
    assert.equal(result.target.dbms, 'firebird');
    // One branch row for three clients: conflicts are certain there (on chain's shared clients only likely).
    if (workload === 'tpcb') assert.ok(result.summary.retried > 0, 'update conflicts were retried');
    assert.equal(result.data.loadedBy, 'earlier', 'run reuses what init loaded');
    assert.equal(result.summary.transactions, 60, `all 60 committed: ${JSON.stringify(result.summary.failures)}`);
    assert.equal(result.target.settings['server_mode'] !== undefined, true);
    assert.doesNotMatch(JSON.stringify(result), /masterkey|password/i);
    if (workload === 'tpcb')
      assert.equal(parseJournal(readFileSync(path.join(cwd, 'journal.txt'), 'utf8')).acknowledged.size, 60, 'one journal entry per commit');
    if (workload === 'chain') assert.match(run.stdout, /Total time: \d+ ms = [\d.]+ ms\/tr = [\d.]+ tr\/sec/);

    const after = await cli(['check', workload, '--db', db.url]);
    assert.equal(after.code, 0, `${after.stdout}${after.stderr}`);
    const drop = await cli(['drop', workload, '--db', db.url]);
    assert.equal(drop.code, 0, drop.stderr);
    const gone = await cli(['check', workload, '--db', db.url]);
    assert.equal(gone.code, 2);
    assert.match(gone.stderr, new RegExp(`^headroom: no ${workload} data in firebird://`));
  });
}
