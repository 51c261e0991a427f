import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResultOutput } from '../../src/result/write.js';
import type { SweepResult } from '../../src/result/sweep.js';

test('ResultOutput: a file that cannot be written moves the result to a fallback in the temporary folder, named in one line; later saves go there too', async (t) => {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-output-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  // A path under a regular file: no one, root included, can write it.
  writeFileSync(path.join(folder, 'file'), 'a file, not a folder\n');
  const asked = path.join(folder, 'file', 'sweep.json');
  const output = new ResultOutput(asked);
  const sweep = { schema: 'test', steps: [1] } as unknown as SweepResult;
  await output.save(sweep, false);
  const fallback = path.join(tmpdir(), `headroom-${process.pid}-sweep.json`);
  t.after(() => rmSync(fallback, { force: true }));
  assert.equal(output.file, fallback);
  assert.deepEqual(JSON.parse(readFileSync(fallback, 'utf8')), { schema: 'test', steps: [1] });
  (sweep as unknown as { steps: number[] }).steps.push(2);
  await output.save(sweep, true);
  assert.deepEqual(JSON.parse(readFileSync(fallback, 'utf8')).steps, [1, 2], 'one file with every step');
  assert.equal(
    output.unwrittenLine('sweep'),
    `cannot write the sweep to ${asked}: a part of the path is a file, not a folder; it was written to ${fallback} instead`,
  );
  assert.deepEqual(
    readdirSync(tmpdir()).filter((name) => name.startsWith(`headroom-${process.pid}-sweep.json.`)),
    [],
    'no temporary file is left',
  );

  const fine = new ResultOutput(path.join(folder, 'r.json'));
  await fine.save(sweep, true);
  assert.equal(fine.unwrittenLine('result'), undefined);
  assert.ok(existsSync(path.join(folder, 'r.json')));
  assert.deepEqual(readdirSync(folder).sort(), ['file', 'r.json'], 'no temporary file beside the result');
});
