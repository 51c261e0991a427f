import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DRIVERS } from '../../src/drivers/registry.js';
import { runCli } from '../helpers/cli.js';

const DBMS = ['sqlite', 'postgres', 'mariadb', 'firebird'];

test('headroom list names every driver of the registry, Firebird among them', async () => {
  assert.deepEqual(DRIVERS.map((d) => d.dbms).sort(), [...DBMS].sort());
  const list = await runCli(['list']);
  assert.equal(list.code, 0, list.stderr);
  for (const d of DRIVERS) assert.match(list.stdout, new RegExp(`^  ${d.dbms}: ${d.url.split(' ')[0]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`, 'm'));
});

for (const verb of [['run'], ['init'], ['check'], ['drop'], ['experiment', 'peak'], ['experiment', 'growth'], ['experiment', 'dead-rows']]) {
  test(`headroom ${verb.join(' ')} --help: --db names all four drivers, and only run speaks of --route`, async () => {
    const help = await runCli([...verb, '--help']);
    assert.equal(help.code, 0, help.stderr);
    const db = help.stdout.split('\n').find((line) => /^\s+--db URL/.test(line));
    assert.ok(db, help.stdout);
    for (const scheme of ['sqlite:', 'postgres://', 'mariadb://', 'firebird://']) assert.ok(db.includes(scheme), `${scheme} in: ${db}`);
    if (verb[0] !== 'run') assert.doesNotMatch(help.stdout, /--route/);
  });
}

test('tpcc says it is derived from TPC-C and that its figures are not comparable with published tpmC', async () => {
  const list = await runCli(['list']);
  const line = list.stdout.split('\n').find((l) => l.startsWith('  tpcc'));
  assert.match(line ?? '', /derived from TPC-C, not an audited TPC-C .*not comparable with published tpmC/);
});
