import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { writeWhole } from '../../src/common/write-whole.js';

test('writeWhole replaces a regular file through a rename and leaves no temporary file', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-write-whole-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'r.json');
  writeFileSync(file, 'old');
  await writeWhole(file, 'new');
  assert.equal(readFileSync(file, 'utf8'), 'new');
  assert.deepEqual(readdirSync(dir), ['r.json']);
});

test('writeWhole writes into a FIFO (as into -o /dev/null) and leaves it a FIFO, where a rename would have put a regular file in its place', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-write-whole-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fifo = path.join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  // The reader opens the FIFO first; writeWhole's open then completes.
  const read = readFile(fifo, 'utf8');
  await writeWhole(fifo, '{"a":1}');
  assert.equal(await read, '{"a":1}');
  assert.ok(statSync(fifo).isFIFO(), 'still a FIFO');
  assert.deepEqual(readdirSync(dir), ['pipe']);
});

test('writeWhole follows a symbolic link and replaces the file it names, so the link stays a link', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-write-whole-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const real = path.join(dir, 'real.json');
  const link = path.join(dir, 'link.json');
  writeFileSync(real, 'old');
  symlinkSync(real, link);
  await writeWhole(link, 'new');
  assert.ok(lstatSync(link).isSymbolicLink(), 'still a link');
  assert.equal(readFileSync(real, 'utf8'), 'new');
  assert.deepEqual(readdirSync(dir).sort(), ['link.json', 'real.json']);
});
