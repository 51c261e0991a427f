import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../../src/result/result.js';
import { readResults } from '../../src/reports/input.js';
import { applyNormalisation, normalisation } from '../../src/reports/normalise.js';
import { readReference } from '../../src/reports/reference.js';
import { runCli, type CliRun } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

const STUDY = fileURLToPath(new URL('../../../reference/chain-study.json', import.meta.url));

function oneLineError(run: CliRun, message: RegExp): void {
  assert.equal(run.code, 2, `exit code; stderr: ${run.stderr}`);
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  assert.match(run.stderr, message);
}

test('compare --normalise: coefficients from a reference and your run of it, applied to other runs', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-normalise-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Three real chain runs with the faithful load's phases, on two SQLite files, and one tpcb run.
  const file = (name: string): string => path.join(dir, `${name}.json`);
  for (const [name, db, extra] of [
    ['ref', 'a.db', ['-c', '2']],
    ['mine', 'b.db', ['-c', '2']],
    ['other', 'c.db', ['-c', '1']],
  ] as const) {
    const run = await runCli([
      'run',
      'chain',
      '--db',
      `sqlite:${path.join(dir, db)}`,
      '-s',
      '1/5000',
      '--load',
      'faithful',
      '-t',
      '30',
      '-P',
      '0',
      '-o',
      file(name),
      ...extra,
    ]);
    assert.equal(run.code, 0, run.stderr);
  }
  const tpcb = await runCli(['run', 'tpcb', '--db', `sqlite:${path.join(dir, 't.db')}`, '-t', '20', '-P', '0', '-o', file('tpcb')]);
  assert.equal(tpcb.code, 0, tpcb.stderr);
  const read = (name: string): RunResult => JSON.parse(readFileSync(file(name), 'utf8')) as RunResult;
  const [ref, mine, other] = [read('ref'), read('mine'), read('other')];

  // The arithmetic: coefficient = reference / yours, figure x coefficient.
  const n = normalisation(readReference(file('ref')), readResults([file('mine')]).runs[0]!);
  const tps = n.metrics.find((c) => c.name === 'tps')!;
  assert.equal(tps.factor, ref.summary.tps / mine.summary.tps);
  const p99 = n.metrics.find((c) => c.name === 'p99')!;
  assert.equal(p99.factor, ref.summary.latencyMs.p99 / mine.summary.latencyMs.p99);
  assert.deepEqual(
    n.phases.map((c) => c.name),
    ref.data.phases.filter((p) => p.seconds > 0 && (mine.data.phases.find((q) => q.name === p.name)?.seconds ?? 0) > 0).map((p) => p.name),
  );
  const addresses = n.phases.find((c) => c.name === 'Addresses')!;
  assert.equal(addresses.factor, ref.data.phases.find((p) => p.name === 'Addresses')!.seconds / mine.data.phases.find((p) => p.name === 'Addresses')!.seconds);
  const applied = applyNormalisation(n, readResults([file('other')]).runs[0]!, readReference(file('ref')));
  assert.equal(applied.metrics.find((m) => m.name === 'tps')!.normalised, other.summary.tps * tps.factor);
  assert.equal(
    applied.phases.find((p) => p.name === 'Addresses')!.normalised,
    other.data.phases.find((p) => p.name === 'Addresses')!.seconds * addresses.factor,
  );
  assert.deepEqual(n.notes, [], 'same clients, options, scale and version: nothing to note');
  // Your own run normalises to the reference's figures.
  const self = applyNormalisation(n, readResults([file('mine')]).runs[0]!, readReference(file('ref')));
  assert.ok(Math.abs(self.metrics.find((m) => m.name === 'tps')!.normalised! - ref.summary.tps) < 1e-9 * ref.summary.tps);

  // Through the CLI: the coefficient and the normalised figure as printed.
  const cli = await runCli(['compare', '--normalise', `${file('ref')}:${file('mine')}`, file('other')]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stdout, new RegExp(`\\ntps +${ref.summary.tps.toFixed(1)} +${mine.summary.tps.toFixed(1)} +x${tps.factor.toFixed(3)}\\n`));
  assert.match(cli.stdout, new RegExp(`2: other +SQLite [\\d.]+ +${other.summary.tps.toFixed(1)} +${(other.summary.tps * tps.factor).toFixed(1)} `));
  assert.match(cli.stdout, /load phases as if on the reference machine/);

  // Refusals, one line each: a reference of another DBMS, a run of another workload, a bad pair.
  oneLineError(
    await runCli(['compare', '--normalise', `${STUDY}:${file('mine')}`]),
    /^headroom: the reference \(chain-study#postgres-ssd: chain on postgres; .*\) and your run mine \(chain on sqlite\) are not the same workload on the same DBMS \(/,
  );
  oneLineError(await runCli(['compare', '--normalise', `${file('ref')}:${file('tpcb')}`]), /are not the same workload on the same DBMS/);
  oneLineError(
    await runCli(['compare', '--normalise', `${file('ref')}:${file('mine')}`, file('tpcb')]),
    /^headroom: tpcb is a tpcb run; the coefficients are for chain/,
  );
  oneLineError(await runCli(['compare', '--normalise', file('ref')]), /is not REFERENCE:YOURS/);
  oneLineError(
    await runCli(['compare', '--normalise', `${STUDY}#nvme:${file('mine')}`]),
    /has no entry "nvme" \(its entries: postgres-ssd, mariadb-ssd, postgres-hdd\)/,
  );
  writeFileSync(
    file('broken'),
    JSON.stringify({ schema: 'headroom.reference/1', entries: [{ id: 'x', workload: 'chain', dbms: 'postgres', metrics: { tps: 'fast' } }] }),
  );
  oneLineError(await runCli(['compare', '--normalise', `${file('broken')}:${file('mine')}`]), /damaged reference file \(entry 1 needs/);
});

test('the study reference file: its three entries, and FILE#ID picks one', () => {
  const entries = readReference(STUDY);
  assert.deepEqual(
    entries.map((e) => [e.id, e.dbms, e.clients, e.metrics.tps]),
    [
      ['postgres-ssd', 'postgres', 33, 2030],
      ['mariadb-ssd', 'mariadb', 150, 9530],
      ['postgres-hdd', 'postgres', 33, 310],
    ],
  );
  assert.deepEqual(
    readReference(`${STUDY}#postgres-hdd`).map((e) => e.id),
    ['postgres-hdd'],
  );
});

test('the study reference with real PostgreSQL and MariaDB runs: coefficients from PostgreSQL, MariaDB shown beside the study MariaDB figure', async (t) => {
  const pg = await freshDatabase(t, 'postgres');
  const maria = await freshDatabase(t, 'mariadb');
  if (!pg || !maria) return;
  t.after(() => Promise.all([pg.dispose(), maria.dispose()]));
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-normalise-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const files = { postgres: path.join(dir, 'pg.json'), mariadb: path.join(dir, 'maria.json') };
  for (const [dbms, db] of [
    ['postgres', pg],
    ['mariadb', maria],
  ] as const) {
    const run = await runCli(['run', 'chain', '--db', db.url, '-s', '1/5000', '-c', '2', '-t', '30', '-P', '0', '-o', files[dbms]]);
    assert.equal(run.code, 0, run.stderr);
  }
  const [pgRun, mariaRun] = readResults([files.postgres, files.mariadb]).runs;
  const n = normalisation(readReference(STUDY), pgRun!);
  assert.equal(n.reference.id, 'postgres-ssd', 'the first PostgreSQL entry when no entry has your client count');
  assert.deepEqual(n.phases, [], 'the study gives no phase timings');
  assert.equal(n.metrics.length, 1);
  assert.equal(n.metrics[0]!.factor, 2030 / pgRun!.result.summary.tps);
  // Same --mode (distributed); 2 clients against 33, 1/5000 against the full data, PostgreSQL 15 against 16.1.
  assert.deepEqual(
    n.notes.map((note) => note.split(':')[0]),
    ['clients differ', 'scales differ', 'versions differ'],
  );
  const applied = applyNormalisation(n, mariaRun!, readReference(STUDY));
  assert.deepEqual(applied.metrics[0], {
    name: 'tps',
    measured: mariaRun!.result.summary.tps,
    normalised: mariaRun!.result.summary.tps * (2030 / pgRun!.result.summary.tps),
    reference: 9530,
  });
});
