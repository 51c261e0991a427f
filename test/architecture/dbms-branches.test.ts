import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Only the drivers and the workloads' dialect files decide by a DBMS's name (design/architecture:
 * a dialect per workload, capabilities per driver). Elsewhere a difference between DBMSs is a
 * driver capability, a recorded result field or a workload dialect's entry, never a comparison.
 */
const ALLOWED: readonly { pattern: RegExp; why: string }[] = [
  { pattern: /^drivers\//, why: 'one folder per DBMS, and the registry that picks one' },
  { pattern: /(^|\/)dialect\.ts$/, why: "a workload's one file of per-DBMS SQL" },
];

const NAMES = '(?:sqlite|postgres|mariadb|firebird)';
/** A DBMS's name as a string literal, in any of the three quotes. */
const DBMS = `(?:'${NAMES}'|"${NAMES}"|\x60${NAMES}\x60)`;
const BRANCH = new RegExp(
  [
    String.raw`(?:===|!==|==|!=)\s*${DBMS}`,
    String.raw`${DBMS}\s*(?:===|!==|==|!=)`,
    String.raw`\bcase\s+${DBMS}\s*:`,
    String.raw`\[\s*${DBMS}(?:\s*,\s*${DBMS})*\s*\]\s*\.includes\(`,
  ].join('|'),
);

/** Does this line decide by a DBMS's name? Comments are not code. */
function branchesOnDbmsName(line: string): boolean {
  const code = line.replace(/\/\/.*$/, '').trim();
  if (code.startsWith('*') || code.startsWith('/*')) return false;
  return BRANCH.test(code);
}

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    return entry.isDirectory() ? sources(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('the DBMS-name matcher sees comparisons, switch cases and name lists, not types, records or comments', () => {
  for (const line of [
    "if (dbms === 'sqlite') return;",
    'return "firebird" !== ctx.dbms;',
    '    case `mariadb`:',
    "const pg = target.dbms == 'postgres';",
    "if (['postgres', 'mariadb'].includes(dbms)) {",
  ])
    assert.equal(branchesOnDbmsName(line), true, line);
  for (const line of [
    "  dbms: 'sqlite';",
    "  postgres: { idColumn: 'id serial PRIMARY KEY' },",
    "runsOn: ['postgres'],",
    "// if (dbms === 'sqlite') is what this file must not do",
    " * case 'firebird': see dialect.ts",
    "const name = 'postgres';",
  ])
    assert.equal(branchesOnDbmsName(line), false, line);
});

test("no code outside drivers/ and the workloads' dialect files branches on a DBMS name", () => {
  // The tests run from dist/test/architecture; the TypeScript sources are three levels up.
  const src = fileURLToPath(new URL('../../../src', import.meta.url));
  const files = sources(src);
  assert.ok(files.length > 50, `the sources are found in ${src}`);
  const found: string[] = [];
  for (const file of files) {
    const relative = path.relative(src, file).split(path.sep).join('/');
    if (ALLOWED.some((allowed) => allowed.pattern.test(relative))) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (branchesOnDbmsName(line)) found.push(`src/${relative}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(
    found,
    [],
    `these lines decide by a DBMS's name: make it a driver capability (src/drivers/driver.ts), a field the result records, or an entry of the workload's dialect.ts\n${found.join('\n')}`,
  );
});
