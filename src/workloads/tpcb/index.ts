import { UserError } from '../../errors.js';
import type { Workload } from '../workload.js';
import { PGBENCH_TABLE, readScript, scriptMix } from '../pgbench-script/mix.js';
import { TPCB_OPTIONS } from './options.js';
import { tpcbDialect } from './dialect.js';
import { MAX_TPCB_SCALE, ROWS_PER_SCALE, TABLES } from './schema.js';
import { clearLoadMark, recordedLoad } from '../load-marker.js';

/** pgbench's tables with their keys, per unit of scale, on PostgreSQL 15 (scale 2: 31.5 MB). */
const TPCB_BYTES_PER_SCALE = 15_800_000;

export const tpcb: Workload = {
  name: 'tpcb',
  tables: TABLES,
  honoursProtocol: true,
  description:
    "pgbench's TPC-B-like banking transaction on pgbench's own tables (pgbench -b tpcb-like / simple-update / select-only), or your pgbench script files (-f)",
  scaleHelp: 'scale factor: 1 branch, 10 tellers and 100,000 accounts per unit, as pgbench -s',
  defaultScale: 1,
  parseScale(text) {
    const value = Number(text);
    if (text.trim() === '' || !Number.isInteger(value)) throw new UserError(`--scale needs a whole number, not "${text}"`, 'see: headroom init --help');
    if (value < 1) throw new UserError(`--scale must be at least 1, not ${text}`, 'see: headroom init --help');
    if (value > MAX_TPCB_SCALE) {
      throw new UserError(
        `--scale must be at most ${MAX_TPCB_SCALE} (pgbench_tellers.tid is an int, ${ROWS_PER_SCALE.tellers} tellers a branch), not ${text}`,
        'see: headroom init --help',
      );
    }
    return value;
  },
  options: TPCB_OPTIONS,

  async detectScale(ctx) {
    for (const table of TABLES) if (!(await ctx.driver.tableExists(ctx.conn, table))) return undefined;
    const [[branches]] = (await ctx.conn.query('SELECT COUNT(*) FROM pgbench_branches')) as [[unknown]];
    return Number(branches);
  },

  // Loading and checking are loaded when asked for: a run needs neither.
  load: recordedLoad('tpcb', TABLES, async (ctx) => (await import('./load.js')).loadTpcb(ctx)),
  check: async (ctx) => (await import('./check.js')).checkTpcb(ctx),

  async drop(ctx) {
    for (const sql of tpcbDialect(ctx.dbms).dropTables) await ctx.conn.query(sql);
    await clearLoadMark(ctx, 'tpcb');
  },

  estimatedBytes: (scale) => scale * TPCB_BYTES_PER_SCALE,

  otherLoader: {
    tool: 'pgbench -i',
    runsOn: ['postgres'],
    hint: 'data from pgbench -i after an unfinished headroom load: headroom drop tpcb, then pgbench -i again',
  },

  async unrecordedDataProblem(ctx) {
    // pgbench -i loads each table in one transaction (COPY), so a table is empty or whole: the
    // tellers' count and the highest aid tell a finished load from one stopped before accounts.
    const [row] = await ctx.conn.query(
      `SELECT (SELECT COUNT(*) FROM pgbench_tellers), (SELECT MAX(aid) FROM pgbench_accounts)${tpcbDialect(ctx.dbms).fromNoTable}`,
    );
    const [tellers, maxAid] = (row ?? []).map((v) => (v === null ? 0 : Number(v)));
    const expected = { tellers: ROWS_PER_SCALE.tellers * ctx.scale, aid: ROWS_PER_SCALE.accounts * ctx.scale };
    if (ctx.scale > 0 && tellers === expected.tellers && maxAid === expected.aid) return undefined;
    return `pgbench_branches says scale ${ctx.scale}, but there are ${tellers} tellers (expected ${expected.tellers}) and the highest aid is ${maxAid} (expected ${expected.aid})`;
  },

  needsData(options) {
    const files = (options['file'] as string[] | undefined) ?? [];
    if (files.length === 0 || ((options['builtin'] as string[] | undefined) ?? []).length > 0) return true;
    // Scripts that name pgbench's tables get them loaded as the built-ins do; others (e.g.
    // sysbench's statements on sbtest1) bring their own, and nothing is loaded for them.
    return files.some((text) => PGBENCH_TABLE.test(readScript(text)));
  },

  transactions(options) {
    return scriptMix(options);
  },
};
