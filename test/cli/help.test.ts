import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DRIVERS } from '../../src/drivers/registry.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';

const DBMS = ['sqlite', 'postgres', 'mariadb', 'firebird'];

test('headroom list names every driver of the registry, Firebird among them', async () => {
  assert.deepEqual(DRIVERS.map((d) => d.dbms).sort(), [...DBMS].sort());
  const list = await runCli(['list']);
  assert.equal(list.code, 0, list.stderr);
  for (const d of DRIVERS) assert.match(list.stdout, new RegExp(`^  ${d.dbms}: ${d.url.split(' ')[0]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`, 'm'));
});

for (const verb of [
  ['run'],
  ['init'],
  ['check'],
  ['drop'],
  ['experiment', 'peak'],
  ['experiment', 'growth'],
  ['experiment', 'chain-study'],
  ['experiment', 'dead-rows'],
]) {
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

test('headroom --help and the README verbs table name every experiment', async () => {
  const { EXPERIMENTS } = await import('../../src/cli/experiment.js');
  const help = await runCli(['--help']);
  assert.equal(help.code, 0, help.stderr);
  const line = help.stdout.split('\n').find((l) => l.startsWith('  experiment '));
  assert.ok(line, help.stdout);
  const readme = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');
  const row = readme.split('\n').find((l) => l.startsWith('| `experiment NAME` |'));
  assert.ok(row, 'the verbs table has experiment NAME');
  for (const name of Object.keys(EXPERIMENTS)) {
    assert.ok(line.includes(` ${name} (`), `${name} in: ${line}`);
    assert.ok(row.includes(`\`${name}\``), `${name} in the README's verbs table`);
  }
});
