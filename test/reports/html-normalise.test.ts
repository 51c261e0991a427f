import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../../src/result/result.js';
import { launchChromium, openFile } from '../helpers/browser.js';
import { runCli, type CliRun } from '../helpers/cli.js';

const STUDY = fileURLToPath(new URL('../../../reference/chain-study.json', import.meta.url));

function oneLineError(run: CliRun, message: RegExp): void {
  assert.equal(run.code, 2, `exit code; stderr: ${run.stderr}`);
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  assert.match(run.stderr, message);
}

test('report --normalise: the normalised comparison in the HTML page and in --markdown, from two real SQLite runs', async (t) => {
  const browser = await launchChromium(t);
  if (!browser) return;
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-report-normalise-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Two SQLite files, so that each run loads its data and has load phases to take coefficients of.
  const file = (name: string): string => path.join(dir, `${name}.json`);
  for (const name of ['ref', 'mine']) {
    const run = await runCli(['run', 'tpcb', '--db', `sqlite:${path.join(dir, `${name}.db`)}`, '-T', '2', '-c', '1', '-P', '0', '-o', file(name)]);
    assert.equal(run.code, 0, run.stderr);
  }
  const [ref, mine] = ['ref', 'mine'].map((name) => JSON.parse(readFileSync(file(name), 'utf8')) as RunResult) as [RunResult, RunResult];
  const tpsFactor = ref.summary.tps / mine.summary.tps;
  const p99Factor = ref.summary.latencyMs.p99 / mine.summary.latencyMs.p99;
  const seconds = (r: RunResult, phase: string): number => r.data.phases.find((p) => p.name === phase)!.seconds;
  const accountsFactor = seconds(ref, 'accounts') / seconds(mine, 'accounts');
  const s3 = (v: number): string => (v >= 100 ? v.toFixed(0) : v.toPrecision(3));

  const html = path.join(dir, 'report.html');
  const run = await runCli(['report', file('ref'), file('mine'), '--normalise', `${file('ref')}:${file('mine')}`, '-o', html]);
  assert.equal(run.code, 0, run.stderr);
  const { page, errors, requests } = await openFile(browser, html);
  assert.deepEqual(errors, [], 'console errors');
  const section = page.locator('#normalised');
  assert.match(await section.locator('h2').innerText(), /Normalised comparison/);
  const rows = async (table: number): Promise<string[][]> =>
    (await section.locator('table').nth(table).locator('tr').allInnerTexts()).map((row) => row.split('\t').map((cell) => cell.trim()));
  const coefficients = await rows(0);
  assert.deepEqual(
    coefficients.find((r) => r[0] === 'tps'),
    ['tps', ref.summary.tps.toFixed(1), mine.summary.tps.toFixed(1), `x${tpsFactor.toFixed(3)}`],
  );
  assert.deepEqual(
    coefficients.find((r) => r[0] === 'p99 ms'),
    ['p99 ms', ref.summary.latencyMs.p99.toFixed(3), mine.summary.latencyMs.p99.toFixed(3), `x${p99Factor.toFixed(3)}`],
  );
  assert.deepEqual(
    coefficients.find((r) => r[0] === 'load: accounts s'),
    ['load: accounts s', s3(seconds(ref, 'accounts')), s3(seconds(mine, 'accounts')), `x${accountsFactor.toFixed(3)}`],
  );
  // Your run first (normalising to the reference exactly), then the reference's own run scaled by the coefficients.
  const normalised = await rows(1);
  assert.deepEqual(normalised[0]!.slice(0, 6), ['run', 'DBMS', 'tps', 'normalised', 'reference', 'vs ref']);
  assert.deepEqual(normalised[1]!.slice(0, 6), [
    'mine',
    normalised[1]![1]!,
    mine.summary.tps.toFixed(1),
    (mine.summary.tps * tpsFactor).toFixed(1),
    ref.summary.tps.toFixed(1),
    'x1.00',
  ]);
  const refTps = ref.summary.tps * tpsFactor;
  assert.deepEqual(normalised[2]!.slice(0, 6), [
    'ref',
    normalised[2]![1]!,
    ref.summary.tps.toFixed(1),
    refTps.toFixed(1),
    ref.summary.tps.toFixed(1),
    `x${(refTps / ref.summary.tps).toFixed(2)}`,
  ]);
  assert.match(normalised[1]![1]!, /^SQLite /);
  assert.equal(normalised[2]![11], (ref.summary.latencyMs.p99 * p99Factor).toFixed(3), 'p99 normalised');
  const phases = await rows(2);
  const accounts = phases[0]!.indexOf('accounts s');
  assert.equal(phases[2]![accounts], `${s3(seconds(ref, 'accounts'))} → ${s3(seconds(ref, 'accounts') * accountsFactor)}`);

  // The bar chart: one bar per run, the normalised tps, with the reference's tps as dots.
  const chart = (await page.evaluate(`(() => {
    const c = window.headroomCharts.find((c) => c.id === 'normalised-tps');
    const canvas = c.plot.ctx.canvas;
    const data = c.plot.ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let blue = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 200 && Math.abs(data[i] - 0x1f) < 12 && Math.abs(data[i + 1] - 0x6f) < 12 && Math.abs(data[i + 2] - 0xd1) < 12) blue++;
    return { data: c.plot.data, blue, inSection: document.getElementById('normalised').contains(canvas) };
  })()`)) as { data: number[][]; blue: number; inSection: boolean };
  assert.deepEqual(chart.data, [
    [0, 1],
    [mine.summary.tps * tpsFactor, refTps],
    [ref.summary.tps, ref.summary.tps],
  ]);
  assert.ok(chart.blue > 2000, `bars drawn: ${chart.blue} blue pixels`);
  assert.ok(chart.inSection);
  assert.deepEqual(requests, [], 'network requests');

  // The same table in Markdown.
  const md = await runCli(['report', file('ref'), file('mine'), '--normalise', `${file('ref')}:${file('mine')}`, '--markdown']);
  assert.equal(md.code, 0, md.stderr);
  assert.ok(md.stdout.includes(`| tps | ${ref.summary.tps.toFixed(1)} | ${mine.summary.tps.toFixed(1)} | x${tpsFactor.toFixed(3)} |`), md.stdout);
  assert.match(md.stdout, new RegExp(`^\\| \`ref\` \\| SQLite [\\d.]+ \\| ${ref.summary.tps.toFixed(1)} \\| ${refTps.toFixed(1)} \\| `, 'm'));

  // Bad pairs: one line, exit 2, and no report written.
  const bad = path.join(dir, 'bad.html');
  oneLineError(
    await runCli(['report', file('ref'), '--normalise', `${STUDY}:${file('mine')}`, '-o', bad]),
    /^headroom: the reference \(chain-study#postgres-ssd: chain on postgres; .*\) and your run mine \(tpcb on sqlite\) are not the same workload on the same DBMS \(/,
  );
  oneLineError(await runCli(['report', file('ref'), '--normalise', file('ref'), '-o', bad]), /is not REFERENCE:YOURS/);
  assert.ok(!existsSync(bad), 'nothing written on a bad pair');
});
