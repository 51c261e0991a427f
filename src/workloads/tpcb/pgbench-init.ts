import type { DbmsName } from '../../drivers/driver.js';
import { UserError } from '../../errors.js';
import type { DataContext, LoadPhase } from '../workload.js';
import { quoteIdentifier, tpcbDialect, type PgbenchTableOptions } from './dialect.js';
import { ROWS_PER_SCALE } from './schema.js';

/** What `headroom init tpcb --pgbench` was asked, in pgbench -i's terms. */
export interface PgbenchInitOptions extends PgbenchTableOptions {
  /** -I: d drop, t create, g client-side or G server-side generation, v vacuum, p primary keys, f foreign keys. */
  steps: string;
  /** Told each step as it starts, in pgbench -i's words ("creating tables..."); headroom pgbench prints them. */
  announce?: (line: string) => void;
  /** Told how the accounts' client-side generation (g) goes, in pgbench -i's words; headroom pgbench prints it. */
  progress?: GenerationProgress;
  /** -q: a progress line about every 5 s instead of every 100,000 rows. */
  quiet?: boolean;
}

/**
 * pgbench -i's progress lines ("100000 of 500000 tuples (20%) done (elapsed 0.10 s, remaining 0.39 s)"):
 * line() for each, end() after the last (a terminal's line, overwritten in place, then ends).
 */
export interface GenerationProgress {
  line(text: string): void;
  end(): void;
}

/** pgbench -i's steps: a line every 100,000 rows, or under -q at most one every 5 s (and the last). */
const PROGRESS_ROWS = 100_000;
const QUIET_STEP_SECONDS = 5;
const QUIET_CHECK_ROWS = 100;

/** Calls progress at pgbench's moments as the accounts' rows are generated, the elapsed time counted from the first. */
function* withProgress<T>(rows: Iterable<T>, total: number, progress: GenerationProgress, quiet: boolean): Generator<T> {
  const started = performance.now();
  let row = 0;
  let nextQuietStep = 1;
  for (const value of rows) {
    yield value;
    row++;
    if (quiet ? row % QUIET_CHECK_ROWS !== 0 : row % PROGRESS_ROWS !== 0) continue;
    const elapsed = (performance.now() - started) / 1000;
    if (quiet && row !== total && elapsed < nextQuietStep * QUIET_STEP_SECONDS) continue;
    if (quiet) nextQuietStep = Math.ceil(elapsed / QUIET_STEP_SECONDS);
    const remaining = ((total - row) * elapsed) / row;
    progress.line(
      `${row} of ${total} tuples (${Math.floor((row * 100) / total)}%) done (elapsed ${elapsed.toFixed(2)} s, remaining ${remaining.toFixed(2)} s)`,
    );
  }
  progress.end();
}

/** pgbench -i's line for each step, printed as the step starts. */
function stepLine(step: string, o: PgbenchInitOptions): string[] {
  switch (step) {
    case 'd':
      return ['dropping old tables...'];
    case 't':
      return ['creating tables...', ...(o.partitions > 0 ? [`creating ${o.partitions} partitions...`] : [])];
    case 'g':
      return ['generating data (client-side)...'];
    case 'G':
      return ['generating data (server-side)...'];
    case 'v':
      return ['vacuuming...'];
    case 'p':
      return ['creating primary keys...'];
    case 'f':
      return ['creating foreign keys...'];
    default:
      return [];
  }
}

const STEP_NAMES: Record<string, string> = {
  d: 'drop tables',
  t: 'create tables',
  g: 'client-side generate',
  G: 'server-side generate',
  v: 'vacuum',
  p: 'primary keys',
  f: 'foreign keys',
};

const FOREIGN_KEYS = [
  'ALTER TABLE pgbench_tellers ADD CONSTRAINT pgbench_tellers_bid_fkey FOREIGN KEY (bid) REFERENCES pgbench_branches (bid)',
  'ALTER TABLE pgbench_accounts ADD CONSTRAINT pgbench_accounts_bid_fkey FOREIGN KEY (bid) REFERENCES pgbench_branches (bid)',
  'ALTER TABLE pgbench_history ADD CONSTRAINT pgbench_history_bid_fkey FOREIGN KEY (bid) REFERENCES pgbench_branches (bid)',
  'ALTER TABLE pgbench_history ADD CONSTRAINT pgbench_history_tid_fkey FOREIGN KEY (tid) REFERENCES pgbench_tellers (tid)',
  'ALTER TABLE pgbench_history ADD CONSTRAINT pgbench_history_aid_fkey FOREIGN KEY (aid) REFERENCES pgbench_accounts (aid)',
];

/** Refuses what a DBMS cannot do before anything is dropped. */
export function checkPgbenchInit(dbms: DbmsName, o: PgbenchInitOptions): void {
  const bad = [...o.steps.replace(/ /g, '')].find((c) => !(c in STEP_NAMES));
  if (bad !== undefined) throw new UserError(`unknown initialization step "${bad}" in -I ${o.steps}`, 'steps are d t g G v p f (as pgbench -I)');
  if (o.steps.includes('g') && o.steps.includes('G'))
    throw new UserError(`-I ${o.steps} has both g and G`, 'generate the data client-side (g) or server-side (G), not both');
  const dialect = tpcbDialect(dbms).pgbench;
  if (dialect.tables) return;
  const pgOnly = (what: string): never => {
    throw new UserError(`${what} applies to PostgreSQL only, not ${dbms}`, `drop it for ${dbms}`);
  };
  if (o.partitions > 0) pgOnly('--partitions');
  if (o.unlogged) pgOnly('--unlogged-tables');
  if (o.fillfactor !== 100) pgOnly('--fillfactor');
  if (o.tablespace !== undefined) pgOnly('--tablespace');
  if (o.indexTablespace !== undefined) pgOnly('--index-tablespace');
  if (o.steps.includes('G')) pgOnly('server-side generation (-I G, PostgreSQL generate_series); use g');
  if (o.steps.includes('f') && dialect.foreignKeysRefused) throw new UserError(...dialect.foreignKeysRefused);
}

/** pgbench -i, step by step, with pgbench's tables, types, filler and key names. */
export async function pgbenchInit(ctx: DataContext, o: PgbenchInitOptions): Promise<LoadPhase[]> {
  checkPgbenchInit(ctx.dbms, o);
  const phases: LoadPhase[] = [];
  const run = async (statements: readonly string[]): Promise<number> => {
    for (const sql of statements) await ctx.conn.query(sql);
    return 0;
  };
  for (const step of o.steps.replace(/ /g, '')) {
    const name = STEP_NAMES[step]!;
    for (const line of o.announce ? stepLine(step, o) : []) o.announce!(line);
    const started = performance.now();
    const rows = await runStep(step, ctx, o, run);
    phases.push({ name, rows, seconds: (performance.now() - started) / 1000 });
    ctx.log(`${name}${rows > 0 ? `: ${rows.toLocaleString('en-US')} rows` : ''}`);
  }
  return phases;
}

async function runStep(step: string, ctx: DataContext, o: PgbenchInitOptions, run: (s: readonly string[]) => Promise<number>): Promise<number> {
  const dialect = tpcbDialect(ctx.dbms);
  switch (step) {
    case 'd':
      return run(dialect.pgbench.drop);
    case 't':
      return run(dialect.pgbench.tables ? dialect.pgbench.tables(ctx.scale, o) : dialect.createTables(ctx.scale));
    case 'g':
      return generateClientSide(ctx, dialect.pgbench.emptyTables, run, o);
    case 'G': {
      const n = (perScale: number): number => perScale * ctx.scale;
      await run([
        'TRUNCATE TABLE pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers',
        `INSERT INTO pgbench_branches (bid, bbalance) SELECT bid, 0 FROM generate_series(1, ${n(ROWS_PER_SCALE.branches)}) AS bid`,
        `INSERT INTO pgbench_tellers (tid, bid, tbalance) SELECT tid, (tid - 1) / ${ROWS_PER_SCALE.tellers} + 1, 0 FROM generate_series(1, ${n(ROWS_PER_SCALE.tellers)}) AS tid`,
        `INSERT INTO pgbench_accounts (aid, bid, abalance, filler) SELECT aid, (aid - 1) / ${ROWS_PER_SCALE.accounts} + 1, 0, '' FROM generate_series(1, ${n(ROWS_PER_SCALE.accounts)}) AS aid`,
      ]);
      return n(ROWS_PER_SCALE.branches + ROWS_PER_SCALE.tellers + ROWS_PER_SCALE.accounts);
    }
    case 'v':
      if (typeof dialect.pgbench.vacuum !== 'string') return run(dialect.pgbench.vacuum);
      ctx.log(`  (${dialect.pgbench.vacuum})`);
      return 0;
    case 'p':
      if (dialect.pgbench.keysWithTables) {
        ctx.log(`  (${ctx.dbms}: the primary keys were declared with the tables)`);
        return 0;
      }
      return run(
        [
          'ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)',
          'ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid)',
          'ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)',
        ].map((sql) => (o.indexTablespace === undefined ? sql : `${sql} USING INDEX TABLESPACE ${quoteIdentifier(o.indexTablespace)}`)),
      );
    case 'f':
      return run(FOREIGN_KEYS);
    default:
      return 0;
  }
}

/** As pgbench's g: empty the tables (history too), then branches and tellers with a NULL filler, accounts with ''. */
async function generateClientSide(
  ctx: DataContext,
  emptyTables: readonly string[],
  run: (s: readonly string[]) => Promise<number>,
  o: PgbenchInitOptions,
): Promise<number> {
  await run(emptyTables);
  const scale = ctx.scale;
  let rows = await ctx.conn.bulkInsert(
    'pgbench_branches',
    ['bid', 'bbalance'],
    generate(scale * ROWS_PER_SCALE.branches, (i) => [i, 0]),
  );
  rows += await ctx.conn.bulkInsert(
    'pgbench_tellers',
    ['tid', 'bid', 'tbalance'],
    generate(scale * ROWS_PER_SCALE.tellers, (i) => [i, Math.floor((i - 1) / ROWS_PER_SCALE.tellers) + 1, 0]),
  );
  const accounts = scale * ROWS_PER_SCALE.accounts;
  const rowsOfAccounts = generate(accounts, (i) => [i, Math.floor((i - 1) / ROWS_PER_SCALE.accounts) + 1, 0, '']);
  rows += await ctx.conn.bulkInsert(
    'pgbench_accounts',
    ['aid', 'bid', 'abalance', 'filler'],
    o.progress ? withProgress(rowsOfAccounts, accounts, o.progress, o.quiet === true) : rowsOfAccounts,
  );
  return rows;
}

function* generate(count: number, make: (id: number) => (number | string)[]): Generator<(number | string)[]> {
  for (let id = 1; id <= count; id++) yield make(id);
}
