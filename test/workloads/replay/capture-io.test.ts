import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UserError } from '../../../src/errors.js';
import type { CaptureFile, CapturedSession } from '../../../src/workloads/replay/capture-file.js';
import { readCaptureFile, writeCaptureFile } from '../../../src/workloads/replay/capture-io.js';
import { summarize } from '../../../src/workloads/replay/capture-summary.js';

function sampleCapture(): CaptureFile {
  const sessions: CapturedSession[] = [
    {
      id: '6571b2c1.2a',
      user: 'app',
      database: 'shop',
      startS: 0,
      statements: [
        { atS: 0, sql: 'BEGIN', kind: 'begin', from: 'pg.log:3' },
        { atS: 0.01, sql: 'UPDATE t SET v = v + $1 WHERE id = $2', params: ['5', null], kind: 'update', durationMs: 0.4, from: 'pg.log:4' },
        { atS: 0.02, sql: 'COMMIT', kind: 'commit', from: 'pg.log:6' },
        { atS: 1.5, sql: 'SELECT 1', kind: 'select', from: 'pg.log:7', error: '42P01 relation "x" does not exist' },
      ],
    },
  ];
  return {
    format: 'headroom-capture',
    version: 1,
    source: { dbms: 'postgres', kind: 'stderr', files: ['/var/log/pg.log'], capturedAt: '2026-12-05T21:00:00.000Z' },
    startedAt: '2026-12-05T20:00:00.000Z',
    durationS: 1.6,
    sessions,
    skipped: [{ reason: 'COPY ... FROM STDIN data', count: 1, first: 'pg.log:9' }],
    summary: summarize(sessions, 1.6),
  };
}

function withFolder(body: (folder: string) => Promise<void>): Promise<void> {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-capture-io-'));
  return body(folder).finally(() => rmSync(folder, { recursive: true, force: true }));
}

/** The one line the reader throws, as the CLI would print it. */
function refusal(file: string): string {
  try {
    readCaptureFile(file);
  } catch (error) {
    assert.ok(error instanceof UserError, String(error));
    assert.ok(!error.message.includes('\n'), error.message);
    return error.message;
  }
  assert.fail(`${file} was read`);
}

test('a written capture file reads back whole', () =>
  withFolder(async (folder) => {
    const file = path.join(folder, 'sub', 'capture.json');
    await writeCaptureFile(sampleCapture(), file);
    assert.deepEqual(readCaptureFile(file), sampleCapture());
  }));

test('the summary counts one transaction per block and per statement outside one', () => {
  const summary = sampleCapture().summary;
  assert.equal(summary.transactions, 2);
  assert.deepEqual(summary.perSecond, [3, 1]);
  assert.equal(summary.reads, 1);
  assert.equal(summary.writes, 1);
});

test('another format, a newer version, broken JSON and a damaged statement are each refused in one line', () =>
  withFolder(async (folder) => {
    const file = (name: string, body: unknown): string => {
      const at = path.join(folder, name);
      writeFileSync(at, typeof body === 'string' ? body : JSON.stringify(body));
      return at;
    };
    assert.match(refusal(file('result.json', { schema: 'headroom.result/1' })), /is not a headroom capture file \(no "format": "headroom-capture"\)/);
    assert.match(refusal(file('newer.json', { ...sampleCapture(), version: 2 })), /is capture file version 2; this headroom reads version 1/);
    assert.match(refusal(file('broken.json', '{"format": "headroom-capt')), /not JSON/);
    assert.match(refusal(path.join(folder, 'missing.json')), /no such file/);
    const damaged = sampleCapture() as unknown as { sessions: { statements: Record<string, unknown>[] }[] };
    damaged.sessions[0]!.statements[1]!['kind'] = 'upsert';
    assert.match(refusal(file('kind.json', damaged)), /damaged capture file \(sessions\[0\]\.statements\[1\]\.kind is not one of select, /);
    const noParams = sampleCapture() as unknown as { sessions: { statements: Record<string, unknown>[] }[] };
    noParams.sessions[0]!.statements[1]!['params'] = [5];
    assert.match(refusal(file('params.json', noParams)), /statements\[1\]\.params is not a list of strings and nulls/);
    const noSessions = { ...sampleCapture(), sessions: undefined };
    assert.match(refusal(file('sessions.json', noSessions)), /field "sessions" is missing or wrong/);
    // The file written is the file read: a good one is not refused for its layout.
    await writeCaptureFile(sampleCapture(), path.join(folder, 'good.json'));
    assert.equal(JSON.parse(readFileSync(path.join(folder, 'good.json'), 'utf8')).format, 'headroom-capture');
  }));

test('a target that is not a plain file (a link, a device such as /dev/null) is written through, not replaced', () =>
  withFolder(async (folder) => {
    const real = path.join(folder, 'real.json');
    const link = path.join(folder, 'link.json');
    writeFileSync(real, '');
    symlinkSync(real, link);
    await writeCaptureFile(sampleCapture(), link);
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link');
    assert.deepEqual(readCaptureFile(real), sampleCapture());
  }));
