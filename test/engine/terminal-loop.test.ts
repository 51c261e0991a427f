import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection, Row, Statement } from '../../src/drivers/driver.js';
import { DbError, type ErrorClass } from '../../src/drivers/errors.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { StopSignal } from '../../src/engine/stop-signal.js';
import { Terminal } from '../../src/engine/terminal.js';
import type { TransactionType } from '../../src/workloads/workload.js';

/**
 * The terminal loop against a scripted connection, no server: each transaction's outcome comes
 * from a script, and the connection counts what the terminal asked of it. Fast checks of the
 * retry, reconnect and bad-request paths that the CLI tests only reach through a live server.
 */

type Step = 'ok' | ErrorClass;

class ScriptedConnection implements Connection {
  rollbacks = 0;
  closed = false;
  constructor(readonly name: string) {}
  async prepare(): Promise<Statement> {
    return { run: async () => 1, all: async (): Promise<Row[]> => [] };
  }
  async query(): Promise<Row[]> {
    return [];
  }
  async begin(): Promise<void> {}
  async commit(): Promise<void> {}
  async rollback(): Promise<void> {
    this.rollbacks++;
  }
  async bulkInsert(): Promise<number> {
    return 0;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** One transaction type whose tries follow `script`; records the random value each try drew and the connection it ran on. */
function scriptedType(script: Step[]): { type: TransactionType; draws: number[]; ranOn: string[]; prepares: string[] } {
  const draws: number[] = [];
  const ranOn: string[] = [];
  const prepares: string[] = [];
  const type: TransactionType = {
    name: 'scripted',
    weight: 1,
    async prepare(conn, terminal) {
      prepares.push((conn as ScriptedConnection).name);
      return async () => {
        draws.push(terminal.random.int(1, 1_000_000));
        ranOn.push((conn as ScriptedConnection).name);
        const step = script.shift() ?? 'ok';
        if (step !== 'ok') throw new DbError(step, `scripted ${step}`, 'X', undefined, { deadlock: false });
        return undefined;
      };
    },
  };
  return { type, draws, ranOn, prepares };
}

async function runTerminal(script: Step[], transactions: number, maxTries: number) {
  const scripted = scriptedType(script);
  const recorder = new Recorder(['scripted']);
  recorder.measuring = true;
  const first = new ScriptedConnection('first');
  const opened: ScriptedConnection[] = [];
  const terminal = new Terminal({
    plan: { id: 0, terminals: 1, seed: 42, transactions, rate: undefined, maxTries },
    types: [scripted.type],
    recorder,
    stop: new StopSignal(),
    connection: first,
    connect: async () => {
      const conn = new ScriptedConnection(`reconnect${opened.length + 1}`);
      opened.push(conn);
      return conn;
    },
    blocking: false,
    gate: undefined,
    context: { scale: 1, dbms: 'sqlite', options: {}, protocol: 'prepared', seed: 42 },
  });
  await terminal.prepare();
  await terminal.run();
  return { ...scripted, totals: recorder.totalsSnapshot(), first, opened, terminal };
}

test('a retryable error is rolled back and tried again with the same random values, up to --max-tries', async () => {
  const { draws, totals, first } = await runTerminal(['retryable', 'retryable', 'ok', 'retryable', 'retryable', 'retryable'], 2, 3);
  const [type] = totals.types;
  // Transaction 1: two failed tries, the third commits; transaction 2: three tries, all fail.
  assert.equal(type!.count, 1);
  assert.equal(type!.failed, 1);
  assert.equal(type!.retried, 4, 'two retries each: --max-tries 3 allows two after the first try');
  assert.equal(draws.length, 6);
  assert.equal(draws[0], draws[1]);
  assert.equal(draws[1], draws[2]);
  assert.equal(draws[3], draws[4]);
  assert.notEqual(draws[2], draws[3], 'a new transaction draws new values');
  assert.equal(first.rollbacks, 5, 'every failed try is rolled back');
});

test('a lost connection is closed, a new one opened and prepared, the outage recorded, and the run goes on', async () => {
  const { ranOn, prepares, totals, first, opened } = await runTerminal(['ok', 'connection_lost', 'ok', 'ok'], 4, 5);
  assert.equal(first.closed, true);
  assert.equal(opened.length, 1);
  assert.deepEqual(prepares, ['first', 'reconnect1']);
  assert.deepEqual(ranOn, ['first', 'first', 'reconnect1', 'reconnect1']);
  assert.equal(first.rollbacks, 0, 'no rollback is sent on a connection that is gone');
  assert.equal(totals.types[0]!.count, 3);
  assert.equal(totals.types[0]!.failed, 1);
  assert.equal(totals.types[0]!.retried, 0, 'a lost connection is not retried');
  assert.equal(totals.outages.length, 1);
  assert.equal(totals.outages[0]!.recovered, true);
});

test('a bad request ends the terminal: the same SQL would only fail again', async () => {
  const { ranOn, totals, terminal } = await runTerminal(['ok', 'bad_request', 'ok'], 3, 5);
  assert.equal(ranOn.length, 2, 'nothing runs after the bad request');
  assert.equal(totals.types[0]!.count, 1);
  assert.equal(totals.types[0]!.failed, 1);
  assert.equal(terminal.abortedBy?.errorClass, 'bad_request');
  assert.equal(totals.terminals[0]!.aborted, 'scripted bad_request');
});
