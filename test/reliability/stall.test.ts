import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/result/result.js';
import { runCli, type CliRun } from '../helpers/cli.js';
import { startThrowawayMariadb, throwawayMariadbUnavailable } from '../helpers/throwaway-mariadb.js';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

/** A server of the test's own that can be stopped in its tracks (SIGSTOP) and let go again. */
interface FreezableServer {
  url: string;
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

const SERVERS: { dbms: 'postgres' | 'mariadb'; unavailable(): string | undefined; open(): Promise<FreezableServer> }[] = [
  {
    dbms: 'postgres',
    unavailable: throwawayPostgresUnavailable,
    async open() {
      const cluster = await startThrowawayPostgres(['host all all 127.0.0.1/32 trust'], []);
      return { url: `postgres://postgres@127.0.0.1:${cluster.port}/postgres`, freeze: cluster.freeze, thaw: cluster.thaw, stop: async () => cluster.stop() };
    },
  },
  {
    dbms: 'mariadb',
    unavailable: throwawayMariadbUnavailable,
    async open() {
      const server = await startThrowawayMariadb();
      server.sql('CREATE DATABASE bench');
      return { url: `mariadb://root@127.0.0.1:${server.port}/bench`, freeze: server.freeze, thaw: server.thaw, stop: server.stop };
    },
  },
];

/** How long after its time a run may take to end: the stop's grace (3 s) and the writing, with room for a machine loaded many times over. */
const END_SLACK_S = 9;

interface StalledRun {
  run: CliRun;
  result: RunResult | undefined;
  /** Seconds from the freeze to the process's exit. */
  afterFreezeS: number;
}

/**
 * Runs `args` (a headroom run against `server`, writing `out`), freezes the server at the progress
 * line `freezeAt` and, `signals` seconds after the freeze, sends each signal; thaws it `thawAfterS`
 * after the freeze when given, else only once the run is over.
 */
async function stalledRun(
  server: FreezableServer,
  args: readonly string[],
  out: string,
  options: { freezeAt: RegExp; thawAfterS?: number; signals?: [number, NodeJS.Signals][] },
): Promise<StalledRun> {
  let frozenAt = 0;
  const timers: NodeJS.Timeout[] = [];
  const run = await runCli([...args, '--db', server.url, '--live=false', '--out', out], {
    cwd: path.dirname(out),
    whenStderr: [
      options.freezeAt,
      (pid) => {
        server.freeze();
        frozenAt = performance.now();
        if (options.thawAfterS !== undefined) timers.push(setTimeout(() => server.thaw(), options.thawAfterS * 1000));
        for (const [seconds, signal] of options.signals ?? []) timers.push(setTimeout(() => process.kill(pid, signal), seconds * 1000));
      },
    ],
  });
  const afterFreezeS = (performance.now() - frozenAt) / 1000;
  for (const timer of timers) clearTimeout(timer);
  server.thaw();
  assert.ok(frozenAt > 0, `the server was never frozen: ${run.stderr}`);
  const result = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as RunResult) : undefined;
  return { run, result, afterFreezeS };
}

/**
 * A server that stops answering (SIGSTOP of its processes) must show as latency and never hang the
 * run: a timed run ends at its time plus the stop's grace, counts what was still waiting as
 * unfinished with the time it waited, says the server stopped answering, and fails. A server of the
 * test's own takes the stall, never a shared one.
 */
for (const { dbms, unavailable, open } of SERVERS) {
  test(`${dbms}: a run against a server that stops answering ends on time, fails and shows the stall in its latency`, async (t) => {
    if (skipOrFail(t, unavailable())) return;
    const server = await open();
    const work = mkdtempSync(path.join(tmpdir(), 'headroom-stall-'));
    t.after(async () => {
      await server.stop();
      rmSync(work, { recursive: true, force: true });
    });
    const init = await runCli(['init', 'tpcb', '--db', server.url], { cwd: work });
    assert.equal(init.code, 0, init.stderr);

    const out = path.join(work, 'stalled.json');
    // Frozen 2 s into an 8 s run, for longer than the run: the server answers nothing more.
    const { run, result, afterFreezeS } = await stalledRun(server, ['run', 'tpcb', '-c', '4', '-T', '8'], out, { freezeAt: /progress: 2\.0 s/ });
    assert.equal(run.code, 1, run.stderr);
    assert.ok(afterFreezeS < 6 + END_SLACK_S, `the run ended ${afterFreezeS.toFixed(1)} s after the freeze, 6 s before its time`);
    assert.ok(result, `no result file: ${run.stderr}`);
    assert.equal(result.status, 'failed');
    assert.match(result.statusReason ?? '', /^the server stopped answering: 4 of 4 terminal\(s\) still in a transaction 3 s after the run ended/);
    // Every terminal was in its transaction: each is counted unfinished, with the time it waited.
    assert.equal(result.summary.unfinished, 4);
    assert.equal(result.stuck?.length, 4);
    for (const stuck of result.stuck ?? []) {
      assert.equal(stuck.place, 'statement');
      assert.ok(stuck.waitedMs >= 6_000, `terminal ${stuck.terminal} waited ${stuck.waitedMs} ms`);
    }
    assert.ok(result.summary.latencyMs.max >= 6_000, `latency max ${result.summary.latencyMs.max} ms hides the stall`);
    assert.equal(result.summary.stalls?.length, 1);
    assert.equal(result.summary.stalls?.[0]?.toEnd, true);
    assert.ok((result.summary.stalls?.[0]?.seconds ?? 0) >= 4, JSON.stringify(result.summary.stalls));
    assert.match(run.stdout, /^unfinished: 4 transaction\(s\) still waiting when the run ended/m);
    assert.match(run.stdout, /^stall: no transaction ended for [\d.]+ s or more from [\d.]+ s into the run to its end, while up to 4 terminal\(s\) waited/m);
    assert.match(run.stdout, /^ {2}terminal 0 in tpcb-like for [\d.]+ s, waiting on the server for: /m);
    // The progress lines said so while it lasted.
    assert.match(run.stderr, /no transaction ended for [\d.]+ s, 4 terminal\(s\) waiting/);
  });
}

test('postgres: a stalled server under -R counts every transaction its schedule made due as unfinished; Ctrl-C, SIGTERM and a second Ctrl-C end a stalled run with its result', async (t) => {
  const { unavailable, open } = SERVERS[0]!;
  if (skipOrFail(t, unavailable())) return;
  const server = await open();
  const work = mkdtempSync(path.join(tmpdir(), 'headroom-stall-'));
  t.after(async () => {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  });
  const init = await runCli(['init', 'tpcb', '--db', server.url], { cwd: work });
  assert.equal(init.code, 0, init.stderr);

  // -R 100: the schedule runs on while the terminals wait, about 600 transactions due in the 6 s after the freeze.
  const rated = await stalledRun(server, ['run', 'tpcb', '-c', '4', '-T', '8', '-R', '100'], path.join(work, 'rated.json'), { freezeAt: /progress: 2\.0 s/ });
  assert.equal(rated.run.code, 1, rated.run.stderr);
  assert.ok(rated.afterFreezeS < 6 + END_SLACK_S, `ended ${rated.afterFreezeS.toFixed(1)} s after the freeze`);
  const unfinished = rated.result?.summary.unfinished ?? 0;
  assert.ok(unfinished > 300, `only ${unfinished} unfinished: the due transactions vanished`);
  assert.equal(rated.result?.stuck?.length, 4);
  assert.ok((rated.result?.summary.latencyMs.max ?? 0) >= 6_000);

  // SIGTERM 2 s into a stall of a 60 s run: it ends within the grace, with what it measured.
  const term = await stalledRun(server, ['run', 'tpcb', '-c', '4', '-T', '60'], path.join(work, 'term.json'), {
    freezeAt: /progress: 2\.0 s/,
    signals: [[2, 'SIGTERM']],
  });
  assert.equal(term.run.code, 130, term.run.stderr);
  assert.ok(term.afterFreezeS < 2 + END_SLACK_S, `ended ${term.afterFreezeS.toFixed(1)} s after the freeze`);
  assert.equal(term.result?.status, 'interrupted');
  assert.equal(term.result?.summary.unfinished, 4);
  assert.match(term.result?.statusReason ?? '', /^interrupted by a signal; the server stopped answering/);

  // A second Ctrl-C cuts the grace short and still writes the result.
  const twice = await stalledRun(server, ['run', 'tpcb', '-c', '4', '-T', '60'], path.join(work, 'twice.json'), {
    freezeAt: /progress: 2\.0 s/,
    signals: [
      [1, 'SIGINT'],
      [1.5, 'SIGINT'],
    ],
  });
  assert.equal(twice.run.code, 130, twice.run.stderr);
  assert.ok(twice.afterFreezeS < 1.5 + END_SLACK_S, `ended ${twice.afterFreezeS.toFixed(1)} s after the freeze`);
  assert.match(twice.run.stderr, /interrupted again: writing what was measured now/);
  assert.equal(twice.result?.status, 'interrupted');
  assert.equal(twice.result?.summary.unfinished, 4);

  // A run bounded by -t has no time to end at: the stall is reported while it lasts, and Ctrl-C ends it.
  const counted = await stalledRun(server, ['run', 'tpcb', '-c', '2', '-t', '1000000'], path.join(work, 'counted.json'), {
    freezeAt: /progress: 2\.0 s/,
    signals: [[4, 'SIGINT']],
  });
  assert.equal(counted.run.code, 130, counted.run.stderr);
  assert.match(counted.run.stderr, /no transaction ended for [\d.]+ s, 2 terminal\(s\) waiting/);
  assert.equal(counted.result?.summary.unfinished, 2);
});

test('postgres: a stall the server recovers from within the run completes it, its latency and the summary showing the stall', async (t) => {
  const { unavailable, open } = SERVERS[0]!;
  if (skipOrFail(t, unavailable())) return;
  const server = await open();
  const work = mkdtempSync(path.join(tmpdir(), 'headroom-stall-'));
  t.after(async () => {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  });
  const init = await runCli(['init', 'tpcb', '--db', server.url], { cwd: work });
  assert.equal(init.code, 0, init.stderr);
  const { run, result } = await stalledRun(server, ['run', 'tpcb', '-c', '4', '-T', '10'], path.join(work, 'recovered.json'), {
    freezeAt: /progress: 2\.0 s/,
    thawAfterS: 3,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(result?.status, 'completed');
  assert.equal(result?.summary.unfinished, undefined);
  assert.ok((result?.summary.latencyMs.max ?? 0) >= 2_500, `latency max ${result?.summary.latencyMs.max} ms`);
  const stall = result?.summary.stalls?.[0];
  assert.ok(stall && stall.seconds >= 2 && stall.toEnd === undefined, JSON.stringify(result?.summary.stalls));
  assert.match(run.stdout, /^stall: no transaction ended for [\d.]+ s or more from [\d.]+ s into the run, while up to 4 terminal\(s\) waited/m);
});
