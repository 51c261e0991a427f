import { UserError } from '../../errors.js';
import type { Workload } from '../workload.js';
import { findPeakQuery } from './queries.js';
import { peakDialect } from './dialect.js';
import { MAX_REFERENCE_ROWS, PEAK_TABLES, REFERENCE_TABLE } from './schema.js';
import { clearLoadMark, recordedLoad } from '../load-marker.js';
import { PEAK_OPTIONS, QUERY_NAMES } from './options.js';

export { PEAK_JOIN_ROWS_OPTION } from './options.js';

/**
 * The simple-query peak study (docs/experiments.md section 4): one of seven trivial queries in a
 * loop, to find the queries per second a DBMS (and the client) can carry at best. `headroom
 * experiment peak` runs all seven in turn with the study's clients.
 */
export const peak: Workload = {
  name: 'peak',
  tables: PEAK_TABLES,
  description: 'one of the seven simple queries of the peak queries/s study, in a loop (headroom experiment peak runs all seven)',
  scaleHelp: 'rows of the small reference table of query 2',
  defaultScale: 100,
  parseScale(text) {
    const value = Number(text);
    if (text.trim() === '' || !Number.isInteger(value) || value < 1)
      throw new UserError(`--scale of peak is a row count of at least 1, not "${text}"`, 'e.g. -s 100');
    if (value > MAX_REFERENCE_ROWS)
      throw new UserError(`--scale of peak must be at most ${MAX_REFERENCE_ROWS} rows (each row's code is its id in 9 digits), not ${text}`, 'e.g. -s 100');
    return value;
  },
  options: PEAK_OPTIONS,

  async detectScale(ctx) {
    if (!(await ctx.driver.tableExists(ctx.conn, REFERENCE_TABLE))) return undefined;
    const [[rows]] = (await ctx.conn.query(`SELECT COUNT(*) FROM ${REFERENCE_TABLE}`)) as [[unknown]];
    return Number(rows);
  },

  load: recordedLoad('peak', PEAK_TABLES, async (ctx) => {
    for (const sql of [...peakDialect(ctx.dbms).dropTables, ...peakDialect(ctx.dbms).createTables]) await ctx.conn.query(sql);
    const started = performance.now();
    const rows = Array.from({ length: ctx.scale }, (_, i) => [i + 1, String(i + 1).padStart(9, '0'), `reference item ${i + 1}`] as const);
    const written = await ctx.conn.bulkInsert(REFERENCE_TABLE, ['id', 'code', 'description'], rows);
    return [{ name: 'reference', rows: written, seconds: (performance.now() - started) / 1000 }];
  }),

  async check(ctx) {
    const [[rows]] = (await ctx.conn.query(`SELECT COUNT(*) FROM ${REFERENCE_TABLE}`)) as [[unknown]];
    return [{ name: 'reference rows', ok: Number(rows) === ctx.scale, detail: `${Number(rows)} rows, scale ${ctx.scale}` }];
  },

  async drop(ctx) {
    for (const sql of peakDialect(ctx.dbms).dropTables) await ctx.conn.query(sql);
    await clearLoadMark(ctx, 'peak');
  },

  transactions(options) {
    const text = String(options['query'] ?? 'constant');
    const query = findPeakQuery(text);
    if (!query) throw new UserError(`unknown peak query "${text}"`, `use a number 1-7 or one of ${QUERY_NAMES}`);
    return [query.type];
  },
};
