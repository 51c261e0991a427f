import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../../src/result/result.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/databases.js';

const BOOKING = fileURLToPath(new URL('../../../examples/ticket-booking.ts', import.meta.url));
const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
const read = (file: string): RunResult => JSON.parse(readFileSync(file, 'utf8')) as RunResult;

/**
 * A module's results say which model and which data they measured: the module's path and sha256
 * and the options its load() read, in the run's summary, in `report` (HTML and Markdown) and in
 * `compare`, which says when two runs measured different versions of the module. A run or a check
 * on data loaded with other options than it is given is refused in one line.
 */
test('module results: path, sha256 and data options in the summary, report and compare; another version of the module is named as such', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-module-report-'));
  t.after(async () => {
    rmSync(folder, { recursive: true, force: true });
    await db.dispose();
  });
  const module = path.join(folder, 'booking.ts');
  copyFileSync(BOOKING, module);
  const cli = (args: string[]) => runCli([...args, '--db', db.url], { cwd: folder, env: { ...process.env, DATABASE_URL: undefined } });
  const short = ['-c', '2', '-T', '1', '-P', '0', '--max-tries', '20'];

  const init = await cli(['init', module, '-s', '1', '--seats', '10']);
  assert.equal(init.code, 0, init.stderr);
  // No --seats: the run takes the data's 10, and its result says so.
  const first = path.join(folder, 'first.json');
  const run1 = await cli(['run', module, ...short, '--hot-shows', '3', '-o', first]);
  assert.equal(run1.code, 0, run1.stderr);
  const r1 = read(first);
  const v1 = sha256(module);
  assert.deepEqual(r1.config.module, { path: module, sha256: v1, loadSha256: r1.config.module?.loadSha256 });
  assert.match(r1.config.module?.loadSha256 ?? '', /^[0-9a-f]{64}$/);
  assert.deepEqual(r1.data.options, { seats: 10 }, 'the options load() read, not --hot-shows, which only the transactions read');
  assert.equal(r1.config.workloadOptions['seats'], 10);
  assert.equal(r1.data.loadedBy, 'earlier');
  assert.match(run1.stdout, new RegExp(`\\nmodule: ${module.replace(/[.]/g, '\\.')} \\(sha256 ${v1}\\)\\n`));
  assert.match(run1.stdout, /\ndata: loaded earlier with --seats 10\n/);

  const refused = await cli(['run', module, ...short, '--seats', '20']);
  assert.equal(refused.code, 2, refused.stderr);
  const lines = refused.stderr.trim().split('\n');
  assert.equal(lines.length, 1, refused.stderr);
  assert.match(
    lines[0]!,
    /^headroom: the ticket-booking data in .* was loaded with --seats 10, not --seats 20 \(omit --seats to use it, or load it again with them: headroom init .*booking\.ts -s 1 --seats 20\)$/,
  );
  const check = await cli(['check', module, '--seats', '20']);
  assert.equal(check.code, 2, check.stderr);
  assert.match(check.stderr, /was loaded with --seats 10, not --seats 20/);

  // Another version of the same file: the comparison says the runs measured different models.
  appendFileSync(module, '\n// a later version of the model\n');
  const v2 = sha256(module);
  assert.notEqual(v1, v2);
  const second = path.join(folder, 'second.json');
  const run2 = await cli(['run', module, ...short, '--hot-shows', '3', '-o', second]);
  assert.equal(run2.code, 0, run2.stderr);
  assert.equal(read(second).config.module?.sha256, v2);
  // A comment is no edit of load(): the run on the data loaded before has nothing to say about it.
  assert.equal(read(second).config.module?.loadSha256, r1.config.module?.loadSha256);
  assert.doesNotMatch(run2.stderr, /has changed/);

  const compare = await runCli(['compare', first, second], { cwd: folder });
  assert.equal(compare.code, 0, compare.stderr);
  assert.ok(compare.stdout.includes(`\n  1: ${module} sha256 ${v1}; data --seats 10\n  2: ${module} sha256 ${v2}; data --seats 10\n`), compare.stdout);
  assert.match(compare.stdout, /\n {2}the sha256 differs: the runs measured different versions of the module file\n/);
  assert.match(
    compare.stdout,
    new RegExp(`warning: these runs differ in workload module \\(1: .*booking\\.ts sha256 ${v1.slice(0, 12)}, 2: .*booking\\.ts sha256 ${v2.slice(0, 12)}\\)`),
  );

  const html = path.join(folder, 'report.html');
  const report = await runCli(['report', first, second, '-o', html, '--markdown'], { cwd: folder });
  assert.equal(report.code, 0, report.stderr);
  for (const v of [v1, v2]) assert.ok(report.stdout.includes(`module \`${module}\` sha256 \`${v}\`; data loaded with \`--seats 10\``), report.stdout);
  const page = readFileSync(html, 'utf8');
  for (const v of [v1, v2]) assert.ok(page.includes(`<dt>module</dt><dd><code>${module}</code> sha256 <code>${v}</code></dd>`), `HTML names ${v}`);
  assert.ok(page.includes('<dt>data loaded with</dt><dd>--seats 10 (earlier)</dd>'));
  assert.match(page, /<li>the sha256 differs: the runs measured different versions of the module file<\/li>/);
});
