import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChainStudyRow } from '../../src/result/experiment-rows.js';
import type { ExperimentResult } from '../../src/result/experiment-result.js';
import type { ChartSpec } from '../../src/reports/html/charts.js';
import { runCli } from '../helpers/cli.js';

function workdir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-chain-study-reports-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function study(dir: string, name: string, extra: readonly string[]): Promise<{ file: string; stdout: string; stderr: string }> {
  const file = path.join(dir, `${name}.json`);
  const run = await runCli(['experiment', 'chain-study', '--db', `sqlite:${path.join(dir, 'c.db')}`, '-s', '1/5000', ...extra, '-o', file]);
  assert.equal(run.code, 0, run.stderr);
  return { file, stdout: run.stdout, stderr: run.stderr };
}

test('experiment chain-study: compare and report know it; its runs are named by what differs; its command is its own', async (t) => {
  const dir = workdir(t);
  // Eleven runs on one stop signal: each used to leave a listener on it, and Node warned at the eleventh.
  const a = await study(dir, 'a', ['-c', '20', '--runs', '10', '--localized-max', '10']);
  assert.doesNotMatch(a.stderr, /MaxListenersExceededWarning/);
  const b = await study(dir, 'b', ['-c', '10', '--runs', '1', '--localized-max', '20']);
  const rows = (file: string): ChainStudyRow[] => (JSON.parse(readFileSync(file, 'utf8')) as ExperimentResult<ChainStudyRow>).rows;

  const compare = await runCli(['compare', a.file, b.file]);
  assert.equal(compare.code, 0, compare.stderr);
  assert.match(compare.stdout, /^step\s+1: tr\/sec\s+1: tps\s+2: tr\/sec\s+ratio\s+2: tps\s+ratio$/m);
  const first = rows(a.file)[0]!;
  const second = rows(b.file)[0]!;
  const line = compare.stdout.split('\n').find((l) => l.startsWith('study distributed 1, 20/10 terminals'));
  assert.ok(line, compare.stdout);
  const cells = line.slice('study distributed 1, 20/10 terminals'.length).trim().split(/\s+/);
  assert.deepEqual(cells, [
    first.trPerSec!.toFixed(1),
    first.tps.toFixed(1),
    second.trPerSec!.toFixed(1),
    `x${(second.trPerSec! / first.trPerSec!).toFixed(2)}`,
    second.tps.toFixed(1),
    `x${(second.tps / first.tps).toFixed(2)}`,
  ]);
  // A step one file lacks: '-' in its columns.
  assert.match(compare.stdout, /^study localized 20, 20 terminals\s+-\s+-\s+[\d.]+\s+\s+[\d.]+/m);

  const html = path.join(dir, 'report.html');
  const report = await runCli(['report', a.file, b.file, '-o', html]);
  assert.equal(report.code, 0, report.stderr);
  const page = readFileSync(html, 'utf8');
  assert.doesNotMatch(page, /has no table in this version/);
  assert.match(page, /statements +run +terminals +units each +Total time ms/);
  for (const label of ['a:distributed 1, 20 terminals', 'a:distributed 10, 20 terminals', 'a:localized, 10 terminals', 'b:localized, 20 terminals'])
    assert.ok(page.includes(`<h2>${label}`), label);
  assert.doesNotMatch(page, /<h2>a:scale /);
  assert.match(page, /command: <code>headroom experiment chain-study --db sqlite:\S+c\.db -s 1\/5000 -c 20 --runs 10 --localized-max 10 -o \S+a\.json<\/code>/);
  assert.doesNotMatch(page, /<code>headroom run /);
  const charts = (JSON.parse(/<script type="application\/json" id="headroom-data">(.*?)<\/script>/s.exec(page)![1]!) as { charts: ChartSpec[] }).charts;
  const names = ['distributed 1, 10 terminals', 'localized, 10 terminals', 'localized, 20 terminals'];
  const chart = charts.find((c) => c.title === "The study's tr/sec and headroom's tps, per run" && c.categories?.join() === names.join());
  assert.ok(chart, `chain-study chart of b: ${charts.map((c) => c.categories?.join()).join(' | ')}`);
  assert.deepEqual(
    chart.lines.map((l) => [l.label, l.values]),
    [
      ['tr/sec', rows(b.file).map((r) => r.trPerSec)],
      ['tps', rows(b.file).map((r) => r.tps)],
    ],
  );

  // A file written before runs recorded their command: the experiment's command line stands for it.
  const old = JSON.parse(readFileSync(b.file, 'utf8')) as ExperimentResult<ChainStudyRow>;
  for (const run of old.runs) {
    run.config.argv = [];
    delete run.config.verb;
  }
  const oldFile = path.join(dir, 'old.json');
  writeFileSync(oldFile, JSON.stringify(old));
  const markdown = await runCli(['report', oldFile, '-o', path.join(dir, 'old.html')]);
  assert.equal(markdown.code, 0, markdown.stderr);
  assert.match(readFileSync(path.join(dir, 'old.html'), 'utf8'), /command: <code>headroom experiment chain-study --db sqlite:\S+ -s 1\/5000 -c 10 --runs 1/);
});

test("experiment chain-study: a Total time that is mostly the terminals' start is said to be, with the scale that avoids it", async (t) => {
  const dir = workdir(t);
  // 1/5000: the localized runs do 2 and 1 units per terminal, a few milliseconds, after up to 190 ms of stagger.
  const { file, stdout } = await study(dir, 's', ['-c', '2', '--runs', '1', '--localized-max', '20']);
  const result = JSON.parse(readFileSync(file, 'utf8')) as ExperimentResult<ChainStudyRow>;
  const localized = result.rows.find((r) => r.run === 'localized 20')!;
  // Connecting, then 19 terminals each 10 ms later than the one before.
  assert.ok(localized.startMs! >= 190 && localized.startMs! < localized.totalMs!, `${localized.startMs} of ${localized.totalMs} ms`);
  assert.equal(localized.startMs, Math.round((result.runs[2]!.summary.totalTime!.connectMs! + 190) * 10) / 10);
  const warning = stdout.split('\n').find((l) => l.startsWith("warning: the terminals' start"));
  assert.ok(warning, stdout);
  assert.match(warning, /is more than 5% of Total time in \d of 3 runs \(up to \d+%: study localized/);
  assert.match(warning, /tr\/sec falls as the terminals rise for that reason alone/);
  assert.match(warning, /at -s (1\/\d+|1) or more \(this run: 0\.0002\)|even on the full data \(-s 1\)/);
  const report = await runCli(['report', file, '--markdown']);
  assert.ok(report.stdout.includes(warning), 'the report says it too');
});
