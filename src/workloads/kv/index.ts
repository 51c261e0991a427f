import { UserError } from '../../errors.js';
import type { Workload } from '../workload.js';
import { checkKv } from './check.js';
import { loadKv, refuseShrinking, tableState } from './load.js';
import { parseRows } from './scale.js';
import { TABLE, dropStatement } from './schema.js';
import { clearLoadMark, recordedLoad } from '../load-marker.js';
import { KV_OPTIONS, TESTS } from './options.js';

const recordedKvLoad = recordedLoad('kv', [TABLE], (ctx) => loadKv(ctx));

export const kv: Workload = {
  name: 'kv',
  tables: [TABLE],
  description: 'one big key-value table, numbers(number, operator, region): select or update one row by a random key (the billion-row study)',
  scaleHelp: 'rows in numbers: 10M, 1000000000, 1e9 (k, M, G/B suffixes; at most 1e9); init on a smaller table appends the missing rows',
  defaultScale: 1_000_000,
  parseScale: parseRows,
  options: KV_OPTIONS,

  async detectScale(ctx) {
    // A table without its key is an unfinished load: undefined, so the next load resumes it.
    const state = await tableState(ctx);
    return state.exists && state.keyed && state.rows > 0 ? state.rows : undefined;
  },

  async load(ctx) {
    // Before the load's record, so that a refusal leaves the table as complete as it was.
    await refuseShrinking(ctx);
    return recordedKvLoad(ctx);
  },
  appendsToSmaller: true,
  // numbers with its key on PostgreSQL 15: 1 M rows took 66.8 MB.
  estimatedBytes: (rows) => rows * 67,

  async loadedSoFar(ctx) {
    const state = await tableState(ctx);
    const rows = state.rows.toLocaleString('en-US');
    return `${TABLE} keeps ${rows} rows (1..${rows})${state.exists && !state.keyed ? ', without its primary key yet' : ''}`;
  },
  check: checkKv,

  async drop(ctx) {
    await ctx.conn.query(dropStatement(ctx.dbms));
    await clearLoadMark(ctx, 'kv');
  },

  transactions(options) {
    const name = (options['test'] as string | undefined) ?? 'read';
    const test = TESTS.find((t) => t.name === name);
    if (!test) throw new UserError(`unknown kv test "${name}"`, `use --test ${TESTS.map((t) => t.name).join(' or ')}`);
    return [test];
  },
};
