import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'node:test';
import type { ServerTarget } from '../../src/config/target.js';
import type { DbmsName } from '../../src/drivers/driver.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

/** The chain module creates the built-in chain's tables under the same names (not chain_meta). */
const CHAIN_MODULE = fileURLToPath(new URL('../../../examples/chain.ts', import.meta.url));
/** chain's tables the module claims, in chain's order; the module's own are the same six. */
const CLAIMED = { chain: 'tables operation, client, address, street, city, country', 'chain-module': 'the tables' };

const SHARED_ON: readonly DbmsName[] = ['sqlite', 'postgres', 'mariadb', 'firebird'];

for (const dbms of SHARED_ON) {
  test(`shared tables on ${dbms}: a workload whose tables another workload loaded since is refused until loaded again`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const folder = mkdtempSync(path.join(tmpdir(), 'headroom-shared-'));
    t.after(async () => {
      rmSync(folder, { recursive: true, force: true });
      await db.dispose();
    });
    // Firebird's URL carries no password: the CLI takes it from ISC_PASSWORD, as isql does.
    const env = { ...process.env, DATABASE_URL: undefined, ...(dbms === 'firebird' ? { ISC_PASSWORD: (db.target as ServerTarget).password ?? '' } : {}) };
    const cli = (args: string[]) => runCli([...args, '--db', db.url], { cwd: folder, env });
    const run = (workload: string) => cli(['run', workload, '-c', '1', '-T', '1', '-P', '0', '-o', path.join(folder, 'run.json')]);
    const ok = (outcome: { code: number | null; stderr: string }, what: string) => assert.equal(outcome.code, 0, `${what}: ${outcome.stderr}`);
    const refusal = (by: string, of: 'chain' | 'chain-module') =>
      new RegExp(
        `^headroom: ${CLAIMED[of]} of ${of} in \\S+ were last loaded by ${by} \\(at \\d{4}-[^)]+\\): they hold its data, not ${of}'s \\(load ${of} again: headroom init \\S+ -s 0\\.001\\)$`,
        'm',
      );

    // The built-in's load, then the module's over the same tables: chain_meta and chain's record stay.
    ok(await cli(['init', 'chain']), 'init chain');
    // The module would drop chain's tables: it names them and needs --force.
    const unforced = await cli(['init', CHAIN_MODULE]);
    assert.equal(unforced.code, 2, unforced.stderr);
    assert.match(
      unforced.stderr,
      /^headroom: init chain-module would drop tables country, city, street, address, client, operation of chain \(loaded at [^)]+\) in \S+ \(add --force/m,
    );
    ok(await cli(['init', CHAIN_MODULE, '--force']), 'init the chain module');
    for (const verb of [
      ['run', 'chain', '-c', '1', '-T', '1', '-P', '0'],
      ['check', 'chain'],
    ]) {
      const refused = await cli(verb);
      assert.notEqual(refused.code, 0, `${verb.join(' ')} measured or checked the module's data as chain's`);
      assert.match(refused.stderr, refusal('chain-module', 'chain'));
      assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
    }
    // The module's own data is its own.
    ok(await run(CHAIN_MODULE), 'run the chain module on its data');

    // Loaded again, chain is chain's; now the module's record is the one that no longer holds.
    ok(await cli(['init', 'chain', '--force']), 're-init chain');
    ok(await run('chain'), 'run chain after its re-init');
    const reverse = await run(CHAIN_MODULE);
    assert.notEqual(reverse.code, 0, "the module ran on chain's data");
    assert.match(reverse.stderr, refusal('chain', 'chain-module'));
    ok(await cli(['init', CHAIN_MODULE, '--force']), 're-init the chain module');
    ok(await run(CHAIN_MODULE), 'run the chain module after its re-init');

    // Dropping the module releases its claims: chain loads afresh and runs.
    ok(await cli(['drop', CHAIN_MODULE]), 'drop the chain module');
    ok(await run('chain'), 'run chain after the module was dropped');
  });
}

test('shared tables: data loaded before claims were kept (no headroom_load_tables) still runs', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-shared-'));
  t.after(async () => {
    rmSync(folder, { recursive: true, force: true });
    await db.dispose();
  });
  const cli = (args: string[]) => runCli([...args, '--db', db.url], { cwd: folder });
  assert.equal((await cli(['init', 'chain'])).code, 0);
  const { default: Database } = await import('better-sqlite3');
  const file = new Database(db.url.replace(/^sqlite:/, ''));
  file.exec('DROP TABLE headroom_load_tables');
  file.close();
  const run = await cli(['run', 'chain', '-c', '1', '-T', '1', '-P', '0', '-o', path.join(folder, 'run.json')]);
  assert.equal(run.code, 0, run.stderr);
});
