import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LINE_EVERY_MS, LoadProgressView, formatEta, loadRates, progressBar, progressText } from '../../src/reports/load-progress.js';
import { chain } from '../../src/workloads/chain/index.js';
import { tpcb } from '../../src/workloads/tpcb/index.js';
import type { DataContext, LoadProgress } from '../../src/workloads/workload.js';
import { connectFresh } from '../helpers/databases.js';

const half: LoadProgress = { phase: 'accounts', rowsDone: 5_000_000, rowsTotal: 10_000_000, bytesDone: 50_000_000 };

test('rates, share and ETA come from the rows and bytes done and the seconds taken', () => {
  assert.deepEqual(loadRates(half, 20), { rowsPerSecond: 250_000, megabytesPerSecond: 2.5, etaSeconds: 20, fraction: 0.5 });
  assert.deepEqual(loadRates({ ...half, rowsTotal: undefined }, 10), {
    rowsPerSecond: 500_000,
    megabytesPerSecond: 5,
    etaSeconds: undefined,
    fraction: undefined,
  });
  assert.deepEqual(loadRates({ ...half, rowsDone: 0, bytesDone: 0 }, 0), { rowsPerSecond: 0, megabytesPerSecond: 0, etaSeconds: undefined, fraction: 0 });
  assert.deepEqual([formatEta(0.2), formatEta(42), formatEta(245), formatEta(3_720)], ['1 s', '42 s', '4m05s', '1h02m']);
});

test('the bar and the plain line say the same figures', () => {
  assert.equal(progressBar(half, 20), `accounts [${'█'.repeat(12)}${'░'.repeat(12)}]  50%  5,000,000 / 10,000,000 rows  250,000 rows/s  2.5 MB/s  ETA 20 s`);
  // Narrower terminals get a shorter bar, then none; the figures stay.
  const narrow = progressBar(half, 20, 91);
  assert.match(narrow, /^accounts \[█{5}░{5}\] {2}50% {2}5,000,000/);
  assert.ok([...narrow].length <= 91, narrow);
  assert.equal(progressBar(half, 20, 80), 'accounts  50%  5,000,000 / 10,000,000 rows  250,000 rows/s  2.5 MB/s  ETA 20 s');
  assert.equal(progressText(half, 20), 'load accounts: 50%, 5,000,000 of 10,000,000 rows, 250,000 rows/s, 2.5 MB/s, ETA 20 s');
  assert.equal(progressText({ ...half, rowsTotal: undefined }, 10), 'load accounts: 5,000,000 rows, 500,000 rows/s, 5.0 MB/s');
});

test('on a terminal the bar is redrawn in place at most 4 times a second; elsewhere a line every few seconds', () => {
  let now = 0;
  const written: string[] = [];
  const tty = new LoadProgressView({ write: (s) => written.push(s), columns: 200 }, true, () => now);
  for (let ms = 0; ms <= 1_000; ms += 50) {
    now = ms;
    tty.update({ phase: 'accounts', rowsDone: ms * 10, rowsTotal: 100_000, bytesDone: ms * 100 });
  }
  assert.equal(written.length, 5, 'at 0, 250, 500, 750 and 1000 ms');
  assert.ok(written.every((w) => w.startsWith('\r\x1b[2K') && !w.includes('\n')));
  assert.match(written[4]!, /10,000 \/ 100,000 rows {2}10,000 rows\/s {2}0\.1 MB\/s {2}ETA 9 s$/);
  now = 1_010;
  tty.update({ phase: 'accounts', rowsDone: 100_000, rowsTotal: 100_000, bytesDone: 1 });
  assert.equal(written.length, 6, 'the last update of a phase is always drawn');
  tty.clear();
  assert.equal(written.at(-1), '\r\x1b[2K', 'clear() wipes the bar before a log line');

  const lines: string[] = [];
  const plain = new LoadProgressView({ write: (s) => lines.push(s) }, false, () => now);
  for (now = 0; now <= 3 * LINE_EVERY_MS; now += 100) plain.update({ phase: 'bulk: clients', rowsDone: now, rowsTotal: undefined, bytesDone: 0 });
  assert.deepEqual(
    lines,
    [5_000, 10_000, 15_000].map((ms) => `load bulk: clients: ${ms.toLocaleString('en-US')} rows, 1,000 rows/s, 0.0 MB/s\n`),
  );
});

test('tpcb and chain loads report their progress per batch, with totals and bytes', async (t) => {
  const fresh = await connectFresh(t, 'sqlite');
  if (!fresh) return;
  const { conn, driver } = fresh;
  const updates: LoadProgress[] = [];
  const ctx = (options: DataContext['options'], scale: number): DataContext => ({
    conn,
    driver,
    dbms: 'sqlite',
    scale,
    options,
    log: () => {},
    progress: (u) => updates.push({ ...u }),
  });
  await tpcb.load(ctx({ builtin: ['tpcb-like'] }, 1));
  const accounts = updates.filter((u) => u.phase === 'accounts');
  assert.equal(accounts.length, 1 + 100 + 1, 'a start, one per 1,000 rows, and the end');
  assert.deepEqual(accounts.map((u) => u.rowsDone).slice(0, 3), [0, 1_000, 2_000]);
  assert.ok(
    accounts.every((u, i) => u.rowsTotal === 100_000 && (i === 0 || u.bytesDone > accounts[i - 1]!.bytesDone || u.rowsDone === accounts[i - 1]!.rowsDone)),
  );
  // "100000,1,0," is 13 bytes: the estimate is the row's text.
  assert.ok(accounts.at(-1)!.bytesDone > 100_000 * 8 && accounts.at(-1)!.bytesDone < 100_000 * 14, `${accounts.at(-1)!.bytesDone} bytes`);
  assert.deepEqual(
    updates.filter((u) => u.phase === 'tellers').map((u) => [u.rowsDone, u.rowsTotal]),
    [
      [0, 10],
      [10, 10],
    ],
  );

  for (const load of ['bulk', 'faithful']) {
    updates.length = 0;
    await chain.load(ctx({ load, mode: 'distributed' }, 1 / 5000));
    const phases = [...new Set(updates.map((u) => u.phase))];
    assert.deepEqual(
      phases,
      load === 'bulk'
        ? ['bulk: countries', 'bulk: cities', 'bulk: streets', 'bulk: addresses', 'bulk: clients']
        : ['Countries', 'Cities', 'Streets', 'Addresses', 'Insert1', 'Insert2', 'Insert3'],
    );
    for (const phase of phases) {
      const last = updates.filter((u) => u.phase === phase).at(-1)!;
      assert.equal(last.rowsDone, last.rowsTotal, `${load} ${phase} ends at its total`);
      assert.ok(last.bytesDone > 0);
    }
  }
});
