import { UserError } from '../../errors.js';
import type { Workload } from '../workload.js';
import { checkKv } from './check.js';
import { loadKv, tableState } from './load.js';
import { read } from './read.js';
import { parseRows } from './scale.js';
import { TABLE, dropStatement } from './schema.js';
import { update } from './update.js';

const TESTS = [read, update];

export const kv: Workload = {
  name: 'kv',
  tables: [TABLE],
  description: 'one big key-value table, numbers(number, operator, region): select or update one row by a random key (the billion-row study)',
  scaleHelp: 'rows in numbers: 10M, 1000000000, 1e9 (k, M, G/B suffixes; at most 1e9); init on a smaller table appends the missing rows',
  defaultScale: 1_000_000,
  parseScale: parseRows,
  options: [{ long: 'test', type: 'string', value: 'NAME', choices: TESTS.map((t) => t.name), help: 'read: SELECT * by a random key; update: UPDATE region and operator by a random key', default: 'read' }],

  async detectScale(ctx) {
    // A table without its key is an unfinished load: undefined, so the next load resumes it.
    const state = await tableState(ctx);
    return state.exists && state.keyed && state.rows > 0 ? state.rows : undefined;
  },

  load: loadKv,
  check: checkKv,

  async drop(ctx) {
    await ctx.conn.query(dropStatement(ctx.dbms));
  },

  transactions(options) {
    const name = (options['test'] as string | undefined) ?? 'read';
    const test = TESTS.find((t) => t.name === name);
    if (!test) throw new UserError(`unknown kv test "${name}"`, `use --test ${TESTS.map((t) => t.name).join(' or ')}`);
    return [test];
  },
};
