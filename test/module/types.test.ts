import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'node:test';
import { starterModule } from '../../src/cli/new-workload.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function typecheck(files: string[]): { code: number | null; out: string } {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-types-'));
  try {
    // The shipped declarations (dist/src/index.d.ts) as 'headroom-oltp', as an installed package resolves it.
    const config = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
        baseUrl: ROOT,
        paths: { 'headroom-oltp': ['dist/src/index.d.ts'] },
      },
      files,
    };
    writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify(config));
    const run = spawnSync(process.execPath, [TSC, '-p', folder], { encoding: 'utf8' });
    return { code: run.status, out: run.stdout + run.stderr };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

test('the examples and the starter module type-check against the shipped .d.ts, and a mistyped module does not', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-types-src-'));
  try {
    const starter = path.join(folder, 'starter.ts');
    writeFileSync(starter, starterModule('starter'));
    const good = typecheck([path.join(ROOT, 'examples/chain.ts'), path.join(ROOT, 'examples/ticket-booking.ts'), starter]);
    assert.equal(good.code, 0, good.out);
    const bad = path.join(folder, 'bad.ts');
    writeFileSync(
      bad,
      `import { defineWorkload } from 'headroom-oltp';
export default defineWorkload({
  name: 'x', description: 'x', options: { n: { type: 'integer', help: 'h', default: 1 } },
  tables: { t: { create: 'CREATE TABLE t (id INTEGER)' } },
  async load(ctx) { const s: string = ctx.options.n; void s; },
  transactions: { a: { weight: 1, async prepare(conn) { return async () => { await conn.query('SELECT 1'); }; } } },
});
`,
    );
    const wrong = typecheck([bad]);
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.out, /bad\.ts\(5,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
