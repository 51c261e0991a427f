import type { Workload } from '../workload.js';
import { checkChain } from './check.js';
import { CHAIN_DBMSS } from './dialect.js';
import { loadChain, readMeta } from './load.js';
import { modelUnit, statementStyle } from './model-unit.js';
import { TABLES, dropStatements } from './schema.js';
import { parseChainScale } from './sizes.js';
import { samplePlanning } from './planning.js';
import { describeStatements } from './statements.js';
import { CHAIN_OPTIONS } from './options.js';
import { clearLoadMark, recordedLoad } from '../load-marker.js';
import { chainRunStart } from './terminal-start.js';

/** The default scale: 1/1000 of the study's data (12,500 addresses, 3 x 3,333 clients), loads in seconds. */
export const DEFAULT_CHAIN_SCALE = 0.001;

export const chain: Workload = {
  name: 'chain',
  tables: TABLES,
  runsOn: CHAIN_DBMSS,
  description: 'the address-chain OLTP model: operation -> client -> address -> street -> city -> country, one model unit per transaction',
  scaleHelp: 'fraction of the full data (12.5 M addresses, 3 x 3,333,333 clients): full, 1/1000 or 0.001; every table keeps at least 2 rows',
  defaultScale: DEFAULT_CHAIN_SCALE,
  parseScale: parseChainScale,
  options: CHAIN_OPTIONS,

  async detectScale(ctx) {
    for (const table of TABLES) if (!(await ctx.driver.tableExists(ctx.conn, table))) return undefined;
    return (await readMeta(ctx))?.scale;
  },

  async loadMode(ctx) {
    return (await readMeta(ctx))?.load;
  },

  statements(options, dbms) {
    const style = statementStyle(options);
    return { style, description: describeStatements(style, dbms) };
  },

  samplePlanning,

  // Its summary prints the study's Total time and per-terminal lines, as the study's program did.
  studySummary: true,
  // The study's program started its terminal threads 10 ms apart, and its Total time includes that.
  terminalStaggerMs: (options) => (statementStyle(options) === 'study' ? 10 : 0),
  load: recordedLoad('chain', TABLES, loadChain),
  // The six tables with keys and indexes on PostgreSQL 15: 30.0 MB at 1/100.
  estimatedBytes: (scale) => scale * 3_000_000_000,
  // chain_meta is written after the data: where detectScale finds it, the load finished.
  unrecordedDataProblem: async () => undefined,
  check: checkChain,
  runStart: chainRunStart,

  async drop(ctx) {
    for (const sql of dropStatements(ctx.dbms)) await ctx.conn.query(sql);
    await clearLoadMark(ctx, 'chain');
  },

  transactions() {
    return [modelUnit];
  },
};
