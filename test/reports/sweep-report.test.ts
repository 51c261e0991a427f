import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SweepResult } from '../../src/result/sweep.js';
import { KNEE_COLOR, REFUSED_COLOR } from '../../src/reports/html/sweep.js';
import { launchChromium, openFile } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'headroom-sweep-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const read = (file: string): SweepResult => JSON.parse(readFileSync(file, 'utf8')) as SweepResult;

let made: Promise<{ sweep: string; marked: string; run: string }> | undefined;
/**
 * A real sweep (-c 1,2,4 on SQLite), the same file with a knee at 2 and a refusal at 8 set by
 * hand (what a sweep against a small server writes, without waiting for one), and a single run.
 */
function files(): Promise<{ sweep: string; marked: string; run: string }> {
  made ??= (async () => {
    const db = `sqlite:${path.join(dir, 'b.db')}`;
    const sweep = path.join(dir, 'sweep.json');
    const run = path.join(dir, 'single.json');
    for (const args of [
      ['-c', '1,2,4', '-T', '1', '-o', sweep],
      ['-c', '2', '-T', '1', '-o', run],
    ]) {
      const done = await runCli(['run', '--db', db, '-P', '0', ...args]);
      if (done.code !== 0) throw new Error(done.stderr);
    }
    const marked = path.join(dir, 'marked.json');
    writeFileSync(marked, JSON.stringify({ ...read(sweep), knee: 2, accepted: 4, refusedAt: 8, refusal: 'too many connections' }));
    return { sweep, marked, run };
  })();
  return made;
}

interface Drawn {
  id: string;
  x: number[];
  finite: number[];
  colorPixels: Record<string, number>;
}

const INSPECT = `window.headroomCharts.filter((c) => c.id.startsWith('sweep-')).map((c) => {
  const canvas = c.plot.ctx.canvas;
  const data = c.plot.ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  const colorPixels = {};
  for (const hex of new Set(c.colors)) {
    const [r, g, b] = [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 200 && Math.abs(data[i] - r) <= 12 && Math.abs(data[i + 1] - g) <= 12 && Math.abs(data[i + 2] - b) <= 12) n++;
    colorPixels[hex] = n;
  }
  return { id: c.id, x: Array.from(c.plot.data[0]), finite: c.plot.data.slice(1).map((a) => a.filter((v) => Number.isFinite(v)).length), colorPixels };
})`;

test('a sweep file gives curves of terminals against tps and p99 in the HTML report, knee and refusal marked', async (t) => {
  const browser = await launchChromium(t);
  if (!browser) return;
  const { marked, run } = await files();
  const html = path.join(dir, 'report.html');
  const done = await runCli(['report', marked, run, '-o', html]);
  assert.equal(done.code, 0, done.stderr);
  const { page, errors, requests } = await openFile(browser, html);
  assert.deepEqual([...errors, ...requests], [], 'no console errors, no requests');
  const charts = (await page.evaluate(INSPECT)) as Drawn[];
  assert.deepEqual(
    charts.map((c) => c.id),
    ['sweep-tps', 'sweep-p99'],
  );
  for (const chart of charts) {
    assert.deepEqual(chart.x, [1, 2, 4, 8], `${chart.id}: the steps and the refused one`);
    assert.deepEqual(chart.finite, [3], `${chart.id}: a value for each step that ran`);
    for (const [color, n] of Object.entries(chart.colorPixels)) assert.ok(n >= 20, `${chart.id}: only ${n} pixels of ${color}`);
    assert.ok(chart.colorPixels[KNEE_COLOR]! >= 20 && chart.colorPixels[REFUSED_COLOR]! >= 20, `${chart.id}: knee and refusal drawn`);
  }
  const text = await page.locator('#sweeps').innerText();
  const sweep = read(marked);
  for (const step of sweep.steps) assert.ok(text.includes(step.summary.tps.toFixed(1)), `tps of step ${step.config.clients} in the table`);
  assert.match(text, /knee: 2 terminals/);
  assert.match(text, /accepted 4, refused at 8/);
  assert.match(text, /8\s+-\s+-\s+-\s+-\s+-\s+-\s+refused by the server/);
  // The single run still gets its own section and charts next to the sweep.
  assert.equal(await page.locator('section.run').count(), 1);
  if (process.env['HEADROOM_SCREENSHOT']) await page.screenshot({ path: process.env['HEADROOM_SCREENSHOT'], fullPage: true });
});

test('markdown, CSV and compare take sweep files too', async () => {
  const { sweep, marked } = await files();
  const csv = path.join(dir, 'series.csv');
  const done = await runCli(['report', marked, '--csv', csv, '--markdown']);
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stderr, /sweep table: .*series-sweep\.csv/);
  const s = read(marked);
  const table = readFileSync(path.join(dir, 'series-sweep.csv'), 'utf8').trimEnd().split('\r\n');
  assert.equal(
    table[0],
    'sweep,terminals,accepted,status,tps,latency_p50_ms,latency_p99_ms,latency_max_ms,failed,client_cpu_us_per_txn,knee,refused,schedule_lag_p99_ms',
  );
  assert.deepEqual(
    table.slice(1).map((l) => l.split(',').slice(0, 5)),
    [
      ...s.steps.map((step) => ['marked', String(step.config.clients), String(step.config.clients), 'completed', String(step.summary.tps)]),
      ['marked', '8', '', 'refused', ''],
    ],
  );
  assert.deepEqual(
    // The knee and refused columns, and an empty lag: the steps were not paced.
    table.slice(1).map((l) => l.split(',').slice(-3)),
    [
      ['false', 'false', ''],
      ['true', 'false', ''],
      ['false', 'false', ''],
      ['false', 'true', ''],
    ],
  );
  const series = readFileSync(csv, 'utf8').trimEnd().split('\r\n');
  assert.equal(series.length, 1 + s.steps.reduce((n, step) => n + step.series.length, 0), "every step's per-second series");
  assert.ok(series[1]!.startsWith('marked@1,'));

  assert.match(done.stdout, /^\*\*`marked`\*\*: terminal sweep, tpcb on SQLite [\d.]+, 1 s per step, completed$/m);
  assert.match(done.stdout, /^\| terminals \| tps \| p50 ms \| p99 ms \| max ms \| failed \| CPU us\/txn \| note \|$/m);
  assert.match(done.stdout, new RegExp(`^\\| 2 \\| ${s.steps[1]!.summary.tps.toFixed(1)} \\|.*\\| knee \\|$`, 'm'));
  assert.match(done.stdout, /^\| 8 \| - \|.*\| refused by the server \|$/m);
  assert.match(done.stdout, /accepted 4, refused at 8/);

  const compared = await runCli(['compare', sweep, marked]);
  assert.equal(compared.code, 0, compared.stderr);
  assert.match(compared.stdout, /^1: sweep: terminal sweep, tpcb on SQLite/m);
  assert.match(compared.stdout, /^2: marked: .*knee: 2 terminals; accepted 4, refused at 8/m);
  const four = compared.stdout
    .split('\n')
    .find((l) => /^4\s/.test(l))!
    .trim()
    .split(/\s+/);
  assert.deepEqual(four, [
    '4',
    s.steps[2]!.summary.tps.toFixed(1),
    s.steps[2]!.summary.latencyMs.p99.toFixed(3),
    s.steps[2]!.summary.tps.toFixed(1),
    'x1.00',
    s.steps[2]!.summary.latencyMs.p99.toFixed(3),
  ]);
  assert.match(compared.stdout, /^8\s+-\s+-\s+refused\s+-$/m);

  const plan = await runCli(['plan', sweep]);
  assert.equal(plan.code, 2);
  assert.match(plan.stderr, /^headroom: .*sweep\.json is a sweep file, not one run's result/);
});

test('a paced sweep (-R): each step line and the table give the lag p99, the CSV too, and no knee is read from tps that is the rate', async () => {
  const db = `sqlite:${path.join(dir, 'paced.db')}`;
  const file = path.join(dir, 'paced.json');
  const done = await runCli(['run', '--db', db, '-b', 'select-only', '-c', '1,2', '-R', '100', '-T', '1', '-P', '0', '--observe=false', '-o', file]);
  assert.equal(done.code, 0, done.stderr);
  const paced = read(file);
  assert.equal(paced.knee, null, 'no knee from steps whose tps is the rate asked for');
  const lags = paced.steps.map((step) => step.summary.scheduleLagMs!.p99!.toFixed(3));
  assert.equal(lags.length, 2);
  for (const [i, lag] of lags.entries())
    assert.match(
      done.stderr + done.stdout,
      new RegExp(`^step ${i + 1} of 2: ${i + 1} clients, [\\d.]+ tps, p99 [\\d.]+ ms, lag p99 ${lag} ms, completed$`, 'm'),
    );
  const lines = done.stdout.split('\n');
  const header = lines.find((l) => l.trim().startsWith('terminals'))!;
  assert.match(header, /p99 ms +max ms +lag p99 ms +failed/);
  const at = header.indexOf('lag p99 ms');
  for (const [i, lag] of lags.entries()) {
    const row = lines.find((l) => new RegExp(`^ +${i + 1} `).test(l))!;
    assert.equal(row.slice(at).trim().split(/\s+/)[0], lag, `${header}\n${row}`);
  }
  assert.match(done.stdout, /^knee: - \(the steps ran paced with -R: /m);

  const csv = path.join(dir, 'paced.csv');
  const report = await runCli(['report', file, '--csv', csv, '--markdown']);
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, /^\| terminals \| tps \| p50 ms \| p99 ms \| max ms \| lag p99 ms \| failed \| CPU us\/txn \| note \|$/m);
  const rows = readFileSync(path.join(dir, 'paced-sweep.csv'), 'utf8').trimEnd().split('\r\n').slice(1);
  assert.deepEqual(
    rows.map((l) => Number(l.split(',').at(-1)).toFixed(3)),
    lags,
  );
});
