import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../../../errors.js';
import { fileErrorReason } from '../../../common/file-errors.js';
import type { CaptureFile, StatementKind } from '../capture-file.js';
import { transactionMix, type TransactionShape } from './transactions.js';

/**
 * Writes a workload module of the capture's most frequent transaction shapes (`--module FILE.ts`):
 * their recorded mix as weights and, for each run, values drawn from those the log showed (a whole
 * recorded transaction's at a time, so that values that went together, an account and its branch,
 * stay together). The module runs against the database the load came from, or a copy of it: the
 * tables it uses are that application's own, which headroom neither creates nor drops; headroom
 * creates one small table of the module's own to record its load. Returns the lines for the user.
 */
export function writeWorkloadModule(capture: CaptureFile, file: string, top: number): string {
  const name = moduleName(file);
  const mix = transactionMix(capture);
  const kept = mix.shapes.slice(0, top);
  if (kept.length === 0)
    throw new UserError(
      `no transaction of the capture can go into a workload module (${mix.failed} failed, ${mix.notDml} not DML, ${mix.unfinished} unfinished)`,
      'capture a log of the application at work (its selects, inserts, updates and deletes)',
    );
  const keptRuns = kept.reduce((n, s) => n + s.count, 0);
  const weights = weightsOf(kept.map((s) => s.count));
  const names = kept.map((shape, i) => transactionName(shape, i));
  const table = `capture_${name.replace(/-/g, '_')}`;
  const text = moduleText({ capture, name, table, kept, weights, names, mix, keptRuns });
  try {
    writeFileSync(file, text);
  } catch (error) {
    throw new UserError(`cannot write the module ${file}: ${fileErrorReason(error)}`, 'give --module a path in a folder you can write to');
  }
  const share = mix.recorded > 0 ? ((keptRuns / mix.recorded) * 100).toFixed(1) : '0';
  return [
    `wrote ${file}: ${kept.length} transaction shape${kept.length === 1 ? '' : 's'}, ${keptRuns.toLocaleString('en-US')} of ${mix.recorded.toLocaleString('en-US')} recorded transactions (${share}%)`,
    `  left out: ${mix.shapes.length - kept.length} less frequent shapes (--top), ${mix.failed} with a failed statement, ${mix.notDml} not DML (DDL, SET, utility), ${mix.unfinished} unfinished at the log's end`,
    `  headroom run ${path.isAbsolute(file) || file.startsWith('.') ? file : `./${file}`} --db URL -c 8 -T 60   # against the captured database or a copy of it`,
  ].join('\n');
}

/** The module's name from its file: `shop-load.ts` is shop-load, in the workload-name grammar. */
function moduleName(file: string): string {
  if (!/\.(ts|mts|js|mjs)$/.test(file)) throw new UserError(`--module ${file} is not a .ts or .js file`, 'give --module a file name such as shop-load.ts');
  const base = path
    .basename(file)
    .replace(/\.(ts|mts|js|mjs)$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, 32)
    .replace(/-+$/, '');
  return base === '' ? 'captured-load' : base;
}

/** Whole-number weights in the recorded proportions: divided by their common divisor, and brought to about 10,000 in all when larger. */
export function weightsOf(counts: readonly number[]): number[] {
  const divisor = counts.reduce((a, b) => gcd(a, b));
  let weights = counts.map((c) => c / divisor);
  const total = weights.reduce((a, b) => a + b, 0);
  if (total > 10_000) weights = weights.map((w) => Math.max(1, Math.round((w * 10_000) / total)));
  return weights;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** `t1-update-pgbench_accounts`: its rank, its first write (else its first statement) and that statement's table. */
function transactionName(shape: TransactionShape, i: number): string {
  const lead = shape.statements.find((s) => s.kind !== 'select') ?? shape.statements[0]!;
  const table = /\b(?:from|into|update)\s+([\w."`]+)/i.exec(lead.sql)?.[1]?.replace(/["`]/g, '');
  return [`t${i + 1}`, lead.kind, ...(table ? [table] : [])].join('-');
}

const RUN: Record<StatementKind, 'all' | 'run'> = {
  select: 'all',
  insert: 'run',
  update: 'run',
  delete: 'run',
  begin: 'run',
  commit: 'run',
  rollback: 'run',
  other: 'run',
};

interface ModuleParts {
  capture: CaptureFile;
  name: string;
  table: string;
  kept: TransactionShape[];
  weights: number[];
  names: string[];
  mix: ReturnType<typeof transactionMix>;
  keptRuns: number;
}

function moduleText(parts: ModuleParts): string {
  const { capture, name, table, kept, weights, names, mix, keptRuns } = parts;
  const q = (text: string): string => JSON.stringify(text);
  const transactions = kept.map((shape, i) => {
    const statements = shape.statements.map((s, j) => `        const s${j} = await conn.prepare(${q(s.sql)});`);
    const body = shape.statements.map((s, j) => `          await s${j}.${RUN[s.kind]}(v[${j}]);`);
    return [
      `    // ${shape.count.toLocaleString('en-US')} recorded (${((shape.count / keptRuns) * 100).toFixed(1)}% of the transactions kept)${shape.rolledBack ? ', ended in ROLLBACK' : ''}`,
      `    ${q(names[i]!)}: {`,
      `      weight: ${weights[i]},`,
      ...(shape.statements.every((s) => s.kind === 'select') ? ['      readOnly: true,'] : []),
      '      async prepare(conn, t) {',
      ...statements,
      `        const values = VALUES[${i}]!;`,
      '        return async () => {',
      '          const v = values[t.random.int(0, values.length - 1)]!;',
      ...(shape.block ? ['          await conn.begin();'] : []),
      ...body,
      ...(shape.block ? (shape.rolledBack ? ['          await conn.rollback();', "          return 'rolled-back';"] : ['          await conn.commit();']) : []),
      '        };',
      '      },',
      '    },',
    ].join('\n');
  });
  const dbms = capture.source.dbms;
  const files = capture.source.files.map((f) => path.basename(f)).join(', ');
  return `/**
 * ${name}: the load captured by headroom capture from ${files} (${dbms} ${capture.source.kind}, from ${capture.startedAt}, ${capture.durationS.toFixed(1)} s),
 * as a workload: its ${kept.length} most frequent transaction shapes, ${keptRuns.toLocaleString('en-US')} of the ${mix.recorded.toLocaleString('en-US')} transactions recorded,
 * with their recorded mix as weights and, on every run, the values of one recorded run of that shape
 * (up to ${kept[0] ? Math.max(...kept.map((s) => s.samples.length)) : 0} kept per shape). Left out: ${mix.shapes.length - kept.length} less frequent shapes, ${mix.failed} transactions with a failed statement,
 * ${mix.notDml} that were not DML (DDL, SET, utility), ${mix.unfinished} unfinished at the log's end.
 *
 * It runs against the database the load was captured from, or a copy of it: the tables it uses are
 * that application's own, which headroom neither creates nor drops. headroom creates only
 * ${table}, to record that the module was set up.
 *
 *   headroom run ./${name}.ts --db URL -c 8 -T 60
 *
 * Edit it as any workload module: weights, statements, values (README, "Your own workload").
 */
import { defineWorkload } from 'headroom-oltp';

/** Per transaction, the recorded runs' values: per run, per statement, its placeholders' values. */
const VALUES: (string | number | null)[][][][] = ${JSON.stringify(kept.map((s) => s.samples))};

export default defineWorkload({
  name: ${q(name)},
  description: ${q(`the load captured from ${files}: ${kept.length} transaction shapes in their recorded mix`)},
  runsOn: [${q(dbms)}],
  tables: {
    ${table}: { create: 'CREATE TABLE ${table} (captured_at VARCHAR(40) NOT NULL)' },
  },
  async load(ctx) {
    await ctx.conn.query('INSERT INTO ${table} (captured_at) VALUES (?)', [${q(capture.startedAt)}]);
  },
  transactions: {
${transactions.join('\n')}
  },
});
`;
}
