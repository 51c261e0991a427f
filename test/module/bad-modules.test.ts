import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { runCli } from '../helpers/cli.js';

/** A good module's body, to break one part at a time. */
const GOOD = `import { defineWorkload } from 'headroom-oltp';
export default defineWorkload({
  name: 'tiny',
  description: 'one table, one read',
  tables: { tiny_t: { create: 'CREATE TABLE tiny_t (id INTEGER PRIMARY KEY)' } },
  async load(ctx) { await ctx.bulkInsert('tiny_t', ['id'], [[1], [2]]); },
  transactions: { read: { weight: WEIGHT, async prepare(conn) { const s = await conn.prepare('SELECT id FROM tiny_t WHERE id = ?'); return async () => { await s.all([1]); }; } } },
});
`;

const CASES: { name: string; file: string; text: string; says: RegExp }[] = [
  {
    name: 'missing default export',
    file: 'a.ts',
    text: 'export const x = 1;\n',
    says: /a\.ts: has no default export \(end the module with: export default defineWorkload/,
  },
  {
    name: 'not made with defineWorkload',
    file: 'b.mjs',
    text: 'export default { name: "x" };\n',
    says: /b\.mjs: its default export was not made with defineWorkload\(\)/,
  },
  {
    name: 'wrong type of a field',
    file: 'c.ts',
    text: GOOD.replace('WEIGHT', '"heavy"'),
    says: /c\.ts: transactions\.read\.weight must be a whole number >= 0, got "heavy"/,
  },
  { name: 'throws at import', file: 'd.js', text: 'throw new Error("no config file");\n', says: /d\.js threw when imported: no config file/ },
  { name: 'syntax error', file: 'e.ts', text: 'export default defineWorkload({ name: ;\n', says: /e\.ts:1:\d+: Unexpected ";"/ },
  { name: 'a built-in name', file: 'f.ts', text: GOOD.replace('WEIGHT', '1').replace("'tiny'", "'tpcb'"), says: /f\.ts: name "tpcb" is a built-in workload's/ },
  {
    name: 'an option shadowing headroom',
    file: 'g.ts',
    text: GOOD.replace('WEIGHT', '1').replace('description:', "options: { clients: { type: 'integer', help: 'x', default: 1 } }, description:"),
    says: /g\.ts: options\.clients: --clients is one of headroom's own options/,
  },
  { name: 'no such file', file: '', text: '', says: /workload module \.\/nowhere\.ts does not exist/ },
];

test('a bad workload module is refused with one line naming what is wrong, exit 2, no stack, nothing left beside it', async (t) => {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-bad-module-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  for (const c of CASES) {
    if (c.file) writeFileSync(path.join(folder, c.file), c.text);
    const run = await runCli(['run', `./${c.file || 'nowhere.ts'}`, '--db', `sqlite:${path.join(folder, 'x.db')}`, '-T', '1'], { cwd: folder });
    assert.equal(run.code, 2, `${c.name}: ${run.stderr}`);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `${c.name}: one line, got: ${run.stderr}`);
    assert.match(lines[0]!, c.says, c.name);
  }
  // The compiled bundles are removed once imported, whether the import worked or not.
  assert.deepEqual(
    readdirSync(folder).filter((f) => f.endsWith('.headroom.mjs')),
    [],
  );
  // The good module passes the same checks: it runs (proving the cases differ only in what they break).
  writeFileSync(path.join(folder, 'good.ts'), GOOD.replace('WEIGHT', '1'));
  const good = await runCli(['run', './good.ts', '--db', `sqlite:${path.join(folder, 'x.db')}`, '-t', '5', '-P', '0', '-o', path.join(folder, 'r.json')], {
    cwd: folder,
  });
  assert.equal(good.code, 0, good.stderr);
});
