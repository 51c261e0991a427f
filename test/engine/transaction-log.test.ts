import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TransactionLog, transactionLogFile, type Outcome, type TransactionLogConfig } from '../../src/engine/transaction-log.js';

function logConfig(t: { after(fn: () => void): void }, overrides: Partial<TransactionLogConfig> = {}): TransactionLogConfig {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-txlog-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return {
    prefix: path.join(dir, 'pgbench_log'),
    pid: 4242,
    aggregateSeconds: undefined,
    samplingRate: 1,
    rated: true,
    maxTries: 3,
    failuresDetailed: true,
    ...overrides,
  };
}

/** The line pgbench writes, spelled out here from the same figures the log was given. */
function expectedLine(
  client: number,
  transaction: number,
  script: number,
  outcome: Outcome,
  lagUs: number,
  tries: number,
  atMs: number,
  config: TransactionLogConfig,
): string {
  const nowUs = Math.round((performance.timeOrigin + atMs) * 1000);
  const status =
    outcome.kind === 'committed'
      ? String(outcome.latencyUs)
      : outcome.kind === 'failed' && config.failuresDetailed && outcome.deadlock !== undefined
        ? outcome.deadlock
          ? 'deadlock'
          : 'serialization'
        : outcome.kind;
  const fields = [client, transaction, status, script, Math.floor(nowUs / 1e6), nowUs % 1e6];
  if (config.rated) fields.push(outcome.kind === 'committed' ? lagUs : 0);
  if (config.maxTries !== 1) fields.push(tries - 1);
  return fields.join(' ');
}

test('per-transaction lines are written byte for byte as pgbench spells them, across flushes of the buffer', (t) => {
  for (const shape of [{}, { rated: false, maxTries: 1 }, { failuresDetailed: false }]) {
    const config = logConfig(t, shape);
    const log = new TransactionLog(config, 0, 1);
    const expected: string[] = [];
    const outcomes: Outcome[] = [
      { kind: 'committed', latencyUs: 1 },
      { kind: 'committed', latencyUs: 9_999_999_999 },
      { kind: 'failed', deadlock: true },
      { kind: 'failed', deadlock: false },
      { kind: 'failed', deadlock: undefined },
      { kind: 'skipped' },
    ];
    // Enough lines for several 64 KB flushes; figures of every width, lag 0, negative and -0.
    for (let i = 0; i < 5000; i++) {
      const outcome = outcomes[i % outcomes.length]!;
      const lagUs = [0, -0, -17, 123_456, 10 ** (i % 12)][i % 5]!;
      const atMs = 1234.5678 + i * 0.37;
      const args = [i % 1000, i + 1, i % 3, outcome, lagUs, 1 + (i % 4), atMs] as const;
      log.record(...args);
      expected.push(expectedLine(...args, config));
    }
    log.close();
    const written = readFileSync(transactionLogFile(config, 0), 'latin1');
    assert.equal(written, `${expected.join('\n')}\n`);
  }
});

test('an aggregate log still writes one line per ended interval among no per-transaction lines', (t) => {
  const config = logConfig(t, { aggregateSeconds: 1, rated: false, maxTries: 1 });
  const log = new TransactionLog(config, 1, 1);
  // Intervals start at whole seconds of the epoch, as pgbench's do: the run starts 100 ms into
  // one, so that both transactions fall in it (from 0, where the process began at .98 of a
  // second, they fell in two).
  const startMs = 1100 - (performance.timeOrigin % 1000);
  log.begin(startMs);
  log.record(0, 1, 0, { kind: 'committed', latencyUs: 100 }, 0, 1, startMs + 10);
  log.record(0, 2, 0, { kind: 'committed', latencyUs: 300 }, 0, 1, startMs + 20);
  log.close(startMs + 3000);
  const lines = readFileSync(transactionLogFile(config, 1), 'latin1').trimEnd().split('\n');
  assert.ok(lines.length >= 2, `an interval with transactions and one without, got: ${lines.join(' | ')}`);
  const withWork = lines.find((line) => line.split(' ')[1] === '2');
  assert.ok(withWork, `no interval counts the two transactions: ${lines.join(' | ')}`);
  assert.deepEqual(withWork.split(' ').slice(1, 6), ['2', '400', String(100 * 100 + 300 * 300), '100', '300']);
});
