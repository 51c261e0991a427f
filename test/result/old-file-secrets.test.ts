import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { makeResults, removeResults } from '../helpers/results.js';

// A result written before the command line was redacted at the source keeps the password in
// config.argv: report and compare of such a file must still show none of it.
const PASSWORD = 'oldFilePw@x:9/z';

test('a result file written with a password in its command line: report (HTML, Markdown) and compare show no part of it', async () => {
  const results = await makeResults(1);
  try {
    const file = path.join(results.dir, 'old.json');
    const parsed = JSON.parse(readFileSync(results.warm, 'utf8')) as { config: { argv: string[] } };
    parsed.config.argv = ['tpcb', '--db', `postgres://app:${PASSWORD}@db.example/bank?sslmode=require`, '-c', '2'];
    writeFileSync(file, JSON.stringify(parsed));
    const html = path.join(results.dir, 'old.html');
    const report = await runCli(['report', file, '-o', html, '--markdown'], { cwd: results.dir });
    assert.equal(report.code, 0, report.stderr);
    const compare = await runCli(['compare', file, results.warm], { cwd: results.dir });
    assert.equal(compare.code, 0, compare.stderr);
    const page = readFileSync(html, 'utf8');
    for (const [where, text] of [
      ['report.html', page],
      ['report stdout', report.stdout + report.stderr],
      ['compare', compare.stdout + compare.stderr],
    ] as const) {
      for (const piece of ['oldFilePw', PASSWORD, encodeURIComponent(PASSWORD)]) assert.ok(!text.includes(piece), `${where} shows ${piece}`);
    }
    // The rest of the URL stays readable where the command is shown.
    assert.match(page, /postgres:\/\/app:\*\*\*@db\.example\/bank\?sslmode=require/);
  } finally {
    removeResults(results.dir);
  }
});
