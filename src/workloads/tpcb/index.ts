import { UserError } from '../../errors.js';
import type { TransactionType, Workload } from '../workload.js';
import { checkTpcb } from './check.js';
import { loadTpcb } from './load.js';
import { TABLES, dropStatements } from './schema.js';
import { selectOnly } from './select-only.js';
import { simpleUpdate } from './simple-update.js';
import { tpcbLike } from './tpcb-like.js';
import { threeReads } from './three-reads.js';

const BUILTINS: readonly TransactionType[] = [tpcbLike, simpleUpdate, selectOnly, threeReads];

export const tpcb: Workload = {
  name: 'tpcb',
  description: "pgbench's TPC-B-like banking transaction on pgbench's own tables (pgbench -b tpcb-like / simple-update / select-only)",
  scaleHelp: 'scale factor: 1 branch, 10 tellers and 100,000 accounts per unit, as pgbench -s',
  defaultScale: 1,
  parseScale(text) {
    const value = Number(text);
    if (text.trim() === '' || !Number.isInteger(value)) throw new UserError(`--scale needs a whole number, not "${text}"`, 'see: headroom init --help');
    if (value < 1) throw new UserError(`--scale must be at least 1, not ${text}`, 'see: headroom init --help');
    return value;
  },
  options: [
    {
      long: 'builtin',
      short: 'b',
      type: 'strings',
      value: 'NAME[@WEIGHT]',
      help: `transaction mix, repeatable: ${BUILTINS.map((t) => t.name).join(', ')}, each with an optional @weight`,
      default: ['tpcb-like'],
    },
  ],

  async detectScale(ctx) {
    for (const table of TABLES) if (!(await ctx.driver.tableExists(ctx.conn, table))) return undefined;
    const [[branches]] = (await ctx.conn.query('SELECT COUNT(*) FROM pgbench_branches')) as [[unknown]];
    return Number(branches);
  },

  load: loadTpcb,
  check: checkTpcb,

  async drop(ctx) {
    for (const sql of dropStatements(ctx.dbms)) await ctx.conn.query(sql);
  },

  transactions(options) {
    const names = (options['builtin'] as string[] | undefined) ?? ['tpcb-like'];
    return names.map((text) => {
      const match = /^([a-z-]+)(?:@(\d+))?$/.exec(text);
      const builtin = BUILTINS.find((t) => t.name === match?.[1]);
      if (!match || !builtin) {
        throw new UserError(`unknown built-in script "${text}"`, `use one of ${BUILTINS.map((t) => t.name).join(', ')}, optionally with @weight`);
      }
      const weight = match[2] === undefined ? 1 : Number(match[2]);
      return { ...builtin, weight };
    });
  },
};
