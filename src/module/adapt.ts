import type { OptionSpec } from '../config/options.js';
import type { DbmsName, SqlValue } from '../drivers/driver.js';
import { UserError } from '../errors.js';
import { Random } from '../common/random.js';
import { RefGenerator } from '../workloads/chain/generator.js';
import { clearLoadMark, readLoadCode, readLoadMark, readLoadOptions, recordLoadCode, recordLoadOptions, recordedLoad } from '../workloads/load-marker.js';
import { PhaseClock } from '../workloads/phases.js';
import { RowProgress } from '../workloads/progress.js';
import type { CheckOutcome, DataContext, TransactionType } from '../workloads/workload.js';
import type { LoadContext, OptionsDefinition, TableDefinition, WorkloadDefinition } from './api.js';
import type { ModuleSource, ModuleWorkload } from './module-workload.js';

// Also imported from here by what adapts and loads modules; module-workload.ts alone is what a run of a built-in loads.
export { engineWorkload, isModuleWorkload, moduleRecord, type ModuleSource, type ModuleWorkload } from './module-workload.js';

/** Whole numbers of at least 1, as tpcb's -s. */
function parseWholeScale(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > Number.MAX_SAFE_INTEGER)
    throw new UserError(`-s ${text} is not a scale of this workload`, `a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`);
  return value;
}

function optionSpecs(options: OptionsDefinition | undefined): OptionSpec[] {
  return Object.entries(options ?? {}).map(([long, o]): OptionSpec => {
    const spec: OptionSpec = { long, type: o.type, help: o.help };
    if (o.default !== undefined) spec.default = o.default;
    if (o.type !== 'boolean' && o.value !== undefined) spec.value = o.value;
    if ((o.type === 'integer' || o.type === 'number') && o.min !== undefined) spec.min = o.min;
    if (o.type === 'string' && o.choices !== undefined) spec.choices = o.choices;
    return spec;
  });
}

function tableStatements(dbms: DbmsName, table: TableDefinition): string[] {
  const own = table.dialect?.[dbms];
  return [own?.create ?? table.create, ...(own?.indexes ?? table.indexes ?? [])];
}

/**
 * The internal Workload for a module's definition. Tables are dropped and created by headroom
 * around the module's load(); the load is recorded in headroom_load as the built-ins' are, so
 * `run` finds the scale and refuses a load that did not finish.
 */
export function adaptDefinition(def: WorkloadDefinition, source: ModuleSource, origin?: (error: unknown) => string | undefined): ModuleWorkload {
  const tables = Object.keys(def.tables);
  const types = Object.entries(def.transactions);
  const scale = def.scale;
  const drop = async (ctx: Pick<DataContext, 'conn' | 'driver'>): Promise<void> => {
    for (const table of [...tables].reverse()) if (await ctx.driver.tableExists(ctx.conn, table)) await ctx.conn.query(`DROP TABLE ${table}`);
  };
  const loadContext = (ctx: DataContext, clock: PhaseClock | undefined, options: object = ctx.options): LoadContext<OptionsDefinition> => ({
    conn: ctx.conn,
    dbms: ctx.dbms,
    scale: ctx.scale,
    options: options as LoadContext<OptionsDefinition>['options'],
    log: (message) => ctx.log(message),
    phase: async (name, work) => {
      if (!clock) throw new UserError(`${def.name}: phase() is for load() only`);
      await clock.timed(name, async () => (await work()) ?? 0);
    },
    bulkInsert: (table, columns, rows, expectedRows) =>
      ctx.conn.bulkInsert(table, columns, new RowProgress(ctx, table, expectedRows).rows(rows as Iterable<SqlValue[]>)),
    referenceGenerator: (at) => new RefGenerator(at),
    random: (seed) => new Random(seed),
  });
  const check = async (ctx: DataContext) => (def.check ? await def.check(loadContext(ctx, undefined)) : []);
  const transactions: TransactionType[] = types.map(([name, t]) => ({
    name,
    weight: t.weight,
    ...(t.readOnly === true ? { readOnly: true } : {}),
    // The terminal's context already holds what the public TerminalContext names.
    prepare: (conn, terminal) => t.prepare(conn, terminal as unknown as Parameters<typeof t.prepare>[1]),
  }));
  return {
    name: def.name,
    description: def.description,
    ...(def.runsOn ? { runsOn: def.runsOn } : {}),
    tables,
    scaleHelp: scale?.help ?? 'a whole number the module reads as it likes (default 1)',
    defaultScale: scale?.default ?? 1,
    parseScale: scale?.parse ? (text) => scale.parse!(text) : parseWholeScale,
    options: optionSpecs(def.options),
    module: source,
    ...(def.demand ? { demand: def.demand } : {}),
    ...(origin ? { errorOrigin: origin } : {}),
    async detectScale(ctx) {
      for (const table of tables) if (!(await ctx.driver.tableExists(ctx.conn, table))) return undefined;
      const mark = await readLoadMark(ctx, def.name);
      return mark?.completed === undefined ? undefined : Number(mark.scale);
    },
    // Without headroom's record the tables are someone else's: refused, never measured.
    loadedSoFar: async () => 'the tables hold what was committed before the stop',
    load: recordedLoad(def.name, tables, async (ctx) => {
      const clock = new PhaseClock(ctx);
      await clock.timed('create tables', async () => {
        await drop(ctx);
        for (const table of Object.values(def.tables)) await clock.statements(tableStatements(ctx.dbms, table));
        return 0;
      });
      const read = new Set<string>();
      await def.load(loadContext(ctx, clock, readsOf(ctx.options, read)));
      let failed: CheckOutcome[] = [];
      if (def.check) await clock.timed('check', async () => ((failed = (await check(ctx)).filter((c) => !c.ok)), 0));
      if (failed.length > 0)
        throw new UserError(
          `${def.name}: the check after the load failed: ${failed.map((c) => `${c.name} (${c.detail})`).join('; ')}`,
          'fix load() or check()',
        );
      // The options the data was made with, in the definition's order: a later run on it records them.
      await recordLoadOptions(
        ctx,
        def.name,
        Object.fromEntries(
          Object.keys(def.options ?? {})
            .filter((k) => read.has(k))
            .map((k) => [k, ctx.options[k]]),
        ),
      );
      await recordLoadCode(ctx, def.name, source.loadSha256);
      return clock.phases;
    }),
    dataOptions: (ctx) => readLoadOptions(ctx, def.name),
    dataLoadCode: (ctx) => readLoadCode(ctx, def.name),
    check,
    checkAfterRun: def.check !== undefined,
    async drop(ctx) {
      await drop(ctx);
      await clearLoadMark(ctx, def.name);
    },
    transactions: () => transactions,
  } satisfies ModuleWorkload;
}

/** The options object as load() sees it, noting each option it reads (or all, when it lists them). */
function readsOf(options: DataContext['options'], read: Set<string>): DataContext['options'] {
  return new Proxy(options, {
    get(target, key, receiver) {
      if (typeof key === 'string' && Object.hasOwn(target, key)) read.add(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
    ownKeys(target) {
      for (const key of Reflect.ownKeys(target)) if (typeof key === 'string') read.add(key);
      return Reflect.ownKeys(target);
    },
  });
}
