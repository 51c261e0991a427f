import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
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
  shared ??= makeResults(undefined, 1);
  return shared;
}
after(async () => {
  if (shared) removeResults((await shared).dir);
});

test('--csv writes every run\'s per-second series; --markdown prints a summary with ratios', async () => {
  const { dir, warm, mixed } = await results();
  const csv = path.join(dir, 'series.csv');
  const run = await runCli(['report', warm, mixed, '--csv', csv, '--markdown']);
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /report: /, 'no HTML unless asked for when only --csv/--markdown are given');

  const lines = readFileSync(csv, 'utf8').trimEnd().split('\r\n');
  assert.equal(lines[0], 'run,t,phase,seconds,transactions,tps,failed,retried,latency_avg_ms,latency_stddev_ms,latency_p50_ms,latency_p99_ms,latency_max_ms,lag_avg_ms,lag_max_ms,client_cpu_percent,event_loop_delay_p99_ms,event_loop_delay_max_ms');
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
  assert.deepEqual(header.trim().split(/\s{2,}/), ['run', 'tps', 'diff', 'ratio', 'p50 ms', 'diff', 'ratio', 'p99 ms', 'diff', 'ratio', 'failed', 'diff', 'ratio', 'CPU/txn us', 'diff', 'ratio']);
  const second = run.stdout.split('\n').find((l) => l.startsWith('2 '))!.trim().split(/\s+/);
  const diff = b.summary.tps - a.summary.tps;
  assert.deepEqual(second.slice(0, 4), ['2', b.summary.tps.toFixed(1), `${diff >= 0 ? '+' : ''}${diff.toFixed(1)}`, `x${(b.summary.tps / a.summary.tps).toFixed(2)}`]);
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
  for (const [args, message] of cases) assertUserError(await runCli(args), message);
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
