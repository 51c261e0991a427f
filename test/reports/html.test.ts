import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { launchChromium, openFile } from '../helpers/browser.js';
import { runCli, type CliRun } from '../helpers/cli.js';
import { makeResults, removeResults, type RealResults } from '../helpers/results.js';

function assertUserError(run: CliRun, message: RegExp): void {
  assert.equal(run.code, 2, `exit code; stderr: ${run.stderr}`);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line expected, got:\n${run.stderr}`);
  assert.match(lines[0]!, /^headroom: .* \(.+\)$/, 'message and hint');
  assert.match(lines[0]!, message);
}

const read = (file: string): RunResult => JSON.parse(readFileSync(file, 'utf8')) as RunResult;

let shared: Promise<RealResults> | undefined;
/** One pair of real runs for the whole file: each test only reads them. */
function results(): Promise<RealResults> {
  shared ??= makeResults();
  return shared;
}
after(async () => {
  if (shared) removeResults((await shared).dir);
});

interface DrawnChart {
  id: string;
  kind: string;
  /** Length of each data array: x first, then one per line. */
  lengths: number[];
  /** Finite values per line. */
  finite: number[];
  /** Canvas pixels of each line's colour, by colour. */
  colorPixels: Record<string, number>;
  /** Canvas pixels of the warm-up shade. */
  shadePixels: number;
  canvasInChart: boolean;
}

/** Runs in the page: what each uPlot chart holds and what its canvas shows. */
const INSPECT = `(() => {
  const near = (data, i, r, g, b, tolerance) => Math.abs(data[i] - r) <= tolerance && Math.abs(data[i + 1] - g) <= tolerance && Math.abs(data[i + 2] - b) <= tolerance;
  return window.headroomCharts.map((c) => {
    const canvas = c.plot.ctx.canvas;
    const data = c.plot.ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const colorPixels = {};
    for (const hex of new Set(c.colors)) {
      const [r, g, b] = [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 200 && near(data, i, r, g, b, 12)) n++;
      colorPixels[hex] = n;
    }
    let shadePixels = 0;
    // The canvas is transparent: the shade, rgba(255, 170, 0, 0.14), stays as it was painted.
    for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 20 && data[i + 3] < 60 && near(data, i, 255, 170, 0, 6)) shadePixels++;
    return {
      id: c.id,
      kind: c.plot.scales.x.distr === 3 ? 'percentile' : 'time',
      lengths: c.plot.data.map((a) => a.length),
      finite: c.plot.data.slice(1).map((a) => a.filter((v) => Number.isFinite(v)).length),
      colorPixels,
      shadePixels,
      canvasInChart: document.getElementById(c.id).contains(canvas),
    };
  });
})()`;

test('the HTML report of real runs opens offline in Chromium and every chart has data drawn', async (t) => {
  const browser = await launchChromium(t);
  if (!browser) return;
  const { dir, warm, mixed } = await results();
  const file = path.join(dir, 'report.html');
  const run = await runCli(['report', warm, mixed, '-o', file]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /report: .*report\.html/);

  const html = readFileSync(file, 'utf8');
  assert.doesNotMatch(html, /<(script|link|img)[^>]+(src|href)=/i, 'nothing is loaded from outside the file');

  const { page, errors, requests } = await openFile(browser, file);
  assert.deepEqual(errors, [], 'console errors');
  const charts = (await page.evaluate(INSPECT)) as DrawnChart[];
  const chartDivs = await page.locator('div.chart').count();
  // Comparison: tps, latency, HDR; each of the two runs: tps, latency, CPU, HDR.
  assert.equal(charts.length, 11);
  assert.equal(chartDivs, charts.length, 'every chart placeholder got its chart');
  for (const chart of charts) {
    assert.ok(chart.canvasInChart, `${chart.id}: canvas inside its element`);
    assert.ok(chart.lengths[0]! >= 2, `${chart.id}: x values ${chart.lengths[0]}`);
    assert.ok(
      chart.lengths.every((n) => n === chart.lengths[0]),
      `${chart.id}: aligned data`,
    );
    for (const [i, n] of chart.finite.entries()) assert.ok(n >= 2, `${chart.id}: line ${i} has ${n} values`);
    for (const [color, n] of Object.entries(chart.colorPixels)) assert.ok(n >= 20, `${chart.id}: only ${n} pixels of ${color} drawn`);
  }
  const byId = new Map(charts.map((c) => [c.id, c]));
  assert.ok(byId.get('run0-tps')!.shadePixels > 1000, 'the warm-up of the first run is shaded');
  assert.equal(byId.get('run1-tps')!.shadePixels, 0, 'the run without warm-up has no shade');
  assert.equal(byId.get('run1-hdr')!.kind, 'percentile');
  assert.equal(byId.get('run1-hdr')!.lengths.length, 1 + 3, 'HDR curves: all, select-only, tpcb-like');

  const text = await page.locator('body').innerText();
  for (const r of [read(warm), read(mixed)]) assert.ok(text.includes(r.summary.tps.toFixed(1)), `tps ${r.summary.tps.toFixed(1)} shown`);
  assert.match(text, /Comparison/);
  assert.match(text, /x\d+\.\d\d/, 'ratios to the first run');
  assert.match(text, /Data load[\s\S]*accounts\s+100000/, 'load phases of the run that loaded');
  assert.equal((text.match(/Where the time went\s+verdict: /g) ?? []).length, 2, 'each run says where the time went');
  assert.match(text, /journal_mode/, 'server settings');

  // After everything has been drawn and read: still nothing asked of the network.
  assert.deepEqual(requests, [], 'network requests');
  const narrow = await openFile(browser, file, { width: 600, height: 900 });
  assert.equal(await narrow.page.evaluate('document.documentElement.scrollWidth'), 600, 'on a narrow screen the page does not scroll sideways');
  assert.deepEqual([...narrow.errors, ...narrow.requests], []);
  if (process.env['HEADROOM_SCREENSHOT']) await page.screenshot({ path: process.env['HEADROOM_SCREENSHOT'], fullPage: true });
});

test("--csv writes every run's per-second series; --markdown prints a summary with ratios", async () => {
  const { dir, warm, mixed } = await results();
  const csv = path.join(dir, 'series.csv');
  const run = await runCli(['report', warm, mixed, '--csv', csv, '--markdown']);
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /report: /, 'no HTML unless asked for when only --csv/--markdown are given');

  const lines = readFileSync(csv, 'utf8').trimEnd().split('\r\n');
  assert.equal(
    lines[0],
    'run,t,phase,seconds,transactions,tps,failed,retried,latency_avg_ms,latency_stddev_ms,latency_p50_ms,latency_p99_ms,latency_max_ms,lag_avg_ms,lag_max_ms,client_cpu_percent,event_loop_delay_p99_ms,event_loop_delay_max_ms',
  );
  const [a, b] = [read(warm), read(mixed)];
  assert.equal(lines.length, 1 + a.series.length + b.series.length);
  const first = lines[1]!.split(',');
  assert.deepEqual(first.slice(0, 3), ['warm', String(a.series[0]!.t), 'warmup']);
  assert.equal(Number(first[5]), a.series[0]!.tps);
  assert.equal(Number(first[16]), a.series[0]!.eventLoopDelayMs!.p99);
  assert.ok(lines.some((l) => l.startsWith('mixed,') && l.includes(',measure,')));

  const md = run.stdout.split('\n');
  assert.match(md[0]!, /^\| run \| workload \| DBMS \| clients \| seconds \| status \| tps \| p50 ms \| p99 ms \| failed \| CPU\/txn us \|$/);
  assert.match(md[1]!, /^\| --- \| --- \| --- \| ---: \|/);
  assert.ok(md[2]!.startsWith(`| \`warm\` | tpcb | SQLite `) && md[2]!.includes(`| ${a.summary.tps.toFixed(1)} |`), md[2]);
  const ratio = (b.summary.tps / a.summary.tps).toFixed(2);
  assert.ok(md[3]!.includes(`| ${b.summary.tps.toFixed(1)} (x${ratio}) |`), `${md[3]} lacks the tps ratio x${ratio}`);
});

test('headroom compare: a table with differences and ratios against the first run', async () => {
  const { warm, mixed } = await results();
  const run = await runCli(['compare', warm, mixed]);
  assert.equal(run.code, 0, run.stderr);
  const [a, b] = [read(warm), read(mixed)];
  assert.match(run.stdout, /^1: warm: tpcb on SQLite [\d.]+, 2 client\(s\), [\d.]+ s, completed$/m);
  assert.match(run.stdout, /^2: mixed: tpcb on SQLite [\d.]+, 1 client\(s\)/m);
  const header = run.stdout.split('\n').find((l) => l.startsWith('run'))!;
  assert.deepEqual(header.trim().split(/\s{2,}/), [
    'run',
    'tps',
    'diff',
    'ratio',
    'p50 ms',
    'diff',
    'ratio',
    'p99 ms',
    'diff',
    'ratio',
    'failed',
    'diff',
    'ratio',
    'CPU/txn us',
    'diff',
    'ratio',
  ]);
  const second = run.stdout
    .split('\n')
    .find((l) => l.startsWith('2 '))!
    .trim()
    .split(/\s+/);
  const diff = b.summary.tps - a.summary.tps;
  assert.deepEqual(second.slice(0, 4), [
    '2',
    b.summary.tps.toFixed(1),
    `${diff >= 0 ? '+' : ''}${diff.toFixed(1)}`,
    `x${(b.summary.tps / a.summary.tps).toFixed(2)}`,
  ]);
});

test('bad input to report and compare is one line with a hint and exit code 2', async () => {
  const { dir, warm } = await results();
  const write = (name: string, content: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return file;
  };
  const newer = { ...read(warm), schema: 'headroom.result/2' };
  const cases: [string[], RegExp][] = [
    [['report'], /no result file given/],
    [['report', path.join(dir, 'nosuch.json')], /no such file: .*nosuch\.json/],
    [['report', dir], /is a folder, not a result file/],
    [['report', write('notjson.json', 'progress: 1.0 s, 100 tps')], /notjson\.json is not a headroom result file \(not JSON\)/],
    [['report', write('other.json', '{"name": "something else"}')], /other\.json is not a headroom result file/],
    [['report', write('newer.json', JSON.stringify(newer))], /newer\.json has schema headroom\.result\/2; this version of headroom reads headroom\.result\/1/],
    [['report', write('damaged.json', JSON.stringify({ schema: 'headroom.result/1', status: 'completed' }))], /damaged\.json is a damaged result file/],
    [['report', warm, '-o', warm], /would overwrite a result file/],
    [['compare', warm], /needs two or more result files, got 1/],
    [['compare', warm, '--frobnicate'], /unknown option --frobnicate/],
  ];
  // Side by side: each is a separate process that only reads.
  const runs = await Promise.all(cases.map(([args]) => runCli(args)));
  for (const [i, [, message]] of cases.entries()) assertUserError(runs[i]!, message);
  assert.equal(read(warm).schema, 'headroom.result/1', 'the result file was left alone');
});

test('text from the result cannot break out of the page', async () => {
  const { dir, warm } = await results();
  const hostile = read(warm);
  hostile.target.version = '</script><script>alert(1)</script>';
  hostile.errors.push({ errorClass: 'other', code: '<b>', message: '<img src=x onerror=alert(1)>', count: 1 });
  const input = path.join(dir, 'hostile.json');
  writeFileSync(input, JSON.stringify(hostile));
  const out = path.join(dir, 'hostile.html');
  const run = await runCli(['report', input, '-o', out]);
  assert.equal(run.code, 0, run.stderr);
  const html = readFileSync(out, 'utf8');
  assert.ok(!html.includes('<script>alert(1)'), 'version escaped');
  assert.ok(!html.includes('<img src=x'), 'error message escaped');
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'), 'error message shown as text');
  assert.equal((html.match(/<script/g) ?? []).length, 3, 'data, uPlot and the page script only');
});

test('two result files of the same name in different folders keep apart in tables and legends', async () => {
  const { dir, warm } = await results();
  mkdirSync(path.join(dir, 'again'));
  const copy = path.join(dir, 'again', 'warm.json');
  copyFileSync(warm, copy);
  const run = await runCli(['report', warm, copy, '--markdown'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^\| `warm` \|/m);
  assert.match(run.stdout, /^\| `again\/warm` \|.*\(x1\.00\)/m);
});
