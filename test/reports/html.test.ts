import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { launchChromium, openFile } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { makeResults } from '../helpers/results.js';

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
  const { dir, warm, mixed } = await makeResults(t);
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
    assert.ok(chart.lengths.every((n) => n === chart.lengths[0]), `${chart.id}: aligned data`);
    for (const [i, n] of chart.finite.entries()) assert.ok(n >= 2, `${chart.id}: line ${i} has ${n} values`);
    for (const [color, n] of Object.entries(chart.colorPixels)) assert.ok(n >= 20, `${chart.id}: only ${n} pixels of ${color} drawn`);
  }
  const byId = new Map(charts.map((c) => [c.id, c]));
  assert.ok(byId.get('run0-tps')!.shadePixels > 1000, 'the warm-up of the first run is shaded');
  assert.equal(byId.get('run1-tps')!.shadePixels, 0, 'the run without warm-up has no shade');
  assert.equal(byId.get('run1-hdr')!.kind, 'percentile');
  assert.equal(byId.get('run1-hdr')!.lengths.length, 1 + 3, 'HDR curves: all, select-only, tpcb-like');

  const text = await page.locator('body').innerText();
  const results = [warm, mixed].map((f) => JSON.parse(readFileSync(f, 'utf8')) as RunResult);
  for (const r of results) assert.ok(text.includes(r.summary.tps.toFixed(1)), `tps ${r.summary.tps.toFixed(1)} shown`);
  assert.match(text, /Comparison/);
  assert.match(text, /x\d+\.\d\d/, 'ratios to the first run');
  assert.match(text, /Data load[\s\S]*accounts\s+100000/, 'load phases of the run that loaded');
  assert.match(text, /journal_mode/, 'server settings');

  // After everything has been drawn and read: still nothing asked of the network.
  assert.deepEqual(requests, [], 'network requests');
  if (process.env['HEADROOM_SCREENSHOT']) await page.screenshot({ path: process.env['HEADROOM_SCREENSHOT'], fullPage: true });
});
