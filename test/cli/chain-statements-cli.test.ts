import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';

test('run chain: the statement style is recorded and shown; --protocol is refused; Total time counts connecting', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-chain-statements-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = `sqlite:${path.join(dir, 'c.db')}`;

  const refused = await runCli(['run', 'chain', '--db', db, '-s', '1/5000', '-c', '1', '-t', '5', '--protocol', 'simple']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^headroom: --protocol does not apply to chain.*--statements study\|prepared/);
  assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);

  for (const style of ['study', 'prepared'] as const) {
    const out = path.join(dir, `${style}.json`);
    const run = await runCli([
      'run',
      'chain',
      '--db',
      db,
      '-s',
      '1/5000',
      '-c',
      '2',
      '-t',
      '20',
      '-P',
      '0',
      '-o',
      out,
      ...(style === 'study' ? [] : ['--statements', style]),
    ]);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    assert.equal(result.config.statements?.style, style, 'study unless asked');
    assert.match(run.stdout, new RegExp(`^statements sent: ${style} \\(`, 'm'));
    assert.equal(result.config.protocol, undefined, 'a protocol chain does not honour is not recorded');
    assert.doesNotMatch(run.stdout, /query mode/);
    const total = result.summary.totalTime!;
    // From before connecting: the connections' time, then the slowest terminal from the start to its last unit.
    const connectingMs = result.summary.pgbench!.initialConnectionMs;
    const slowestMs = Math.max(...result.terminals.map((x) => x.seconds)) * 1000;
    assert.ok(connectingMs > 0 && total.ms >= connectingMs + slowestMs - 1, `${total.ms} ms covers ${connectingMs} ms connecting and ${slowestMs} ms of units`);
    assert.ok(
      Math.abs(total.trPerSec! - (40 * 1000) / total.ms) < 0.1 + (0.01 * 40 * 1000) / total.ms,
      `${total.trPerSec} tr/sec for 40 units in ${total.ms} ms`,
    );
    assert.match(
      run.stdout,
      new RegExp(
        `^Total time: ${Math.round(total.ms)} ms = [\\d.]+ ms/tr = ${total.trPerSec!.toFixed(1)} tr/sec \\(as the study times it, from before the first connection`,
        'm',
      ),
    );
  }

  // The study's program started its terminals 10 ms apart: the third starts 20 ms after the first.
  const staggered = path.join(dir, 'staggered.json');
  const three = await runCli(['run', 'chain', '--db', db, '-c', '3', '-t', '1', '-P', '0', '-o', staggered]);
  assert.equal(three.code, 0, three.stderr);
  const s = JSON.parse(readFileSync(staggered, 'utf8')) as RunResult;
  assert.ok(s.terminals[2]!.seconds >= 0.02, `terminal 2 ended ${s.terminals[2]!.seconds} s after the start`);
  assert.ok(s.summary.totalTime!.ms >= 20);

  // tpcb honours --protocol and records it.
  const out = path.join(dir, 'tpcb.json');
  const tpcb = await runCli(['run', 'tpcb', '--db', db, '-c', '1', '-t', '5', '-P', '0', '--protocol', 'simple', '-o', out]);
  assert.equal(tpcb.code, 0, tpcb.stderr);
  assert.equal((JSON.parse(readFileSync(out, 'utf8')) as RunResult).config.protocol, 'simple');
  assert.match(tpcb.stdout, /^query mode: simple$/m);
});

test('a workload option refused by the verbs whose work does not read it: one line, exit 2, nothing done', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-verb-options-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = `sqlite:${path.join(dir, 'v.db')}`;
  const refusals: [string[], RegExp][] = [
    [
      ['init', 'chain', '-s', '1/5000', '--statements', 'prepared'],
      /^headroom: --statements does nothing in headroom init chain \(it applies to headroom run\)$/,
    ],
    [['init', 'chain', '-s', '1/5000', '--mode', 'localized'], /^headroom: --mode does nothing in headroom init chain/],
    [['check', 'chain', '--load', 'faithful'], /^headroom: --load does nothing in headroom check chain \(it applies to headroom init, run\)$/],
    [['drop', 'chain', '--statements', 'study'], /^headroom: --statements does nothing in headroom drop chain/],
    [['init', 'kv', '-s', '10', '--test', 'update'], /^headroom: --test does nothing in headroom init kv/],
    [['init', 'tpcb', '-s', '1', '-b', 'select-only'], /^headroom: --builtin does nothing in headroom init tpcb/],
    [['init', 'tpcc', '-s', '1', '--check-all'], /^headroom: --check-all does nothing in headroom init tpcc \(it applies to headroom check, run\)$/],
  ];
  for (const [args, message] of refusals) {
    const run = await runCli([...args, '--db', db]);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr.trimEnd(), message, args.join(' '));
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  }
  // Refused before connecting: the database file was never made.
  assert.equal(existsSync(path.join(dir, 'v.db')), false);

  // Where the verb reads it, the option is taken: init loads faithfully, check and run go on.
  const init = await runCli(['init', 'chain', '--db', db, '-s', '1/5000', '--load', 'faithful']);
  assert.equal(init.code, 0, init.stderr);
  assert.match(init.stderr, /Insert3/);
  const run = await runCli(['run', 'chain', '--db', db, '-c', '1', '-t', '3', '-P', '0', '--statements', 'prepared', '--mode', 'localized']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^statements sent: prepared/m);
});
