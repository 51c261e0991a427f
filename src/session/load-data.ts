import type { OptionValues } from '../config/options.js';
import type { Connection, Driver, Row, SqlValue, Statement } from '../drivers/driver.js';
import { InterruptedError, UserError } from '../errors.js';
import { readLoadMark } from '../workloads/load-marker.js';
import { allClaims, otherClaims } from '../workloads/table-claims.js';
import { isBuiltInWorkload, loadWorkloads } from '../workloads/registry.js';
import { isModuleWorkload } from '../module/module-workload.js';
import type { DataContext, LoadPhase, LoadProgress, Workload } from '../workloads/workload.js';
import { dataContext, logLine, type Session } from './session.js';
import { diskSpaceLines } from './disk-space.js';
import { onInterrupt } from './interrupt.js';
import { Watchdog } from '../engine/watchdog.js';

/**
 * A load is given up when nothing was sent to the database for this long while no statement is
 * pending: its load() waits on its own code (a workload module's promise that never settles).
 */
const LOAD_SILENCE_MS = 15_000;

export interface LoadRequest {
  session: Session;
  workload: Workload;
  options: OptionValues;
  scale: number;
  /** The scale of the workload's data already there (detectScale), undefined when there is none. */
  present: number | undefined;
  /** What is loading, for messages: 'init', 'run', 'experiment dead-rows'. */
  verb: string;
  /** --force: a larger dataset may be dropped to load a smaller one. */
  force: boolean;
  /** The caller's stop signal (experiments, which handle Ctrl-C themselves); without it the load handles Ctrl-C. */
  signal?: AbortSignal;
  /** The load proper; default: the workload's. */
  load?: (ctx: DataContext) => Promise<LoadPhase[]>;
  /** False when the load writes no rows (init --pgbench -I without g or G): no size to check. */
  writesData?: boolean;
}

/**
 * Loads a workload's data for a verb: says before it starts what it replaces (and refuses to shrink
 * a larger dataset without --force), estimates the size against the free disk space, and stops
 * cleanly on Ctrl-C: no statement starts after it, what was in flight settles (a COPY is rolled
 * back), and only then does it say what is left and what to do, so nothing commits after that.
 */
export async function loadData(request: LoadRequest): Promise<LoadPhase[]> {
  const { session, workload, scale } = request;
  await refuseReplacingOthers(request);
  announceReplacement(request);
  if (request.writesData !== false) for (const line of await diskSpaceLines(session, workload, scale)) logLine(line);
  // A blocking driver (SQLite) loads a table in one synchronous call, during which a handler could
  // not run: there Ctrl-C keeps its default, ending the process at once, and SQLite rolls back the
  // open transaction; the record stays unfinished, so run and check refuse the data all the same.
  const own = request.signal || session.driver.blocking ? undefined : onInterrupt('stopping the load');
  const signal = request.signal ?? own?.signal ?? new AbortController().signal;
  const guard = new LoadGuard(signal);
  const watchdog = new Watchdog(LOAD_SILENCE_MS, () =>
    guard.pending
      ? undefined
      : `the load of ${workload.name} did not end: nothing was sent to the database for ${LOAD_SILENCE_MS / 1000} s and no statement is pending, so its load() waits on its own code (a promise that never settles)`,
  );
  guard.onMove = () => watchdog.moved();
  const base = dataContext(session, request.options, scale, (m) => logLine(`  ${m}`));
  let last: LoadProgress | undefined;
  const ctx: DataContext = {
    ...base,
    conn: guard.connection(session.conn),
    driver: guard.driver(session.driver),
    replaceLarger: request.force,
    progress: (update) => {
      last = update;
      base.progress?.(update);
    },
  };
  try {
    return await watchdog.guard((request.load ?? ((c: DataContext) => workload.load(c)))(ctx));
  } catch (error) {
    if (!signal.aborted) throw error;
    await guard.settled();
    base.done();
    const finished = last !== undefined && last.rowsTotal !== undefined && last.rowsDone >= last.rowsTotal;
    const where = !last ? 'before its first rows' : finished ? `after ${last.phase}` : `in ${last.phase}`;
    const name = `${workload.name} at scale ${formatScale(scale)}`;
    logLine(`the load of ${name} stopped ${where}; the statement in flight was rolled back or finished, and nothing more is sent`);
    if (workload.loadedSoFar) logLine(`  ${await workload.loadedSoFar({ ...base, conn: session.conn })}`);
    throw new InterruptedError(`${workload.name} in ${session.url} is incomplete: run and check refuse it`, reloadHint(workload, formatScale(scale)));
  } finally {
    base.done();
    own?.dispose();
  }
}

/**
 * The tables of the workload that are there now and are another's, by owner: the claims say
 * whose (table-claims.ts); a table without one (loaded before claims were kept) is the loading
 * workload's own when its load is recorded or it is the built-in whose table it is (data pgbench
 * -i made), else a built-in's whose table it is and whose load is recorded, else no headroom
 * load's (a table of the database's own).
 */
export async function othersTables(session: Session, workload: Workload): Promise<{ owner: string; loadedAt: string | undefined; tables: string[] }[]> {
  const ctx = { conn: session.conn, driver: session.driver, dbms: session.target.dbms };
  const present: string[] = [];
  for (const table of workload.tables) if (await session.driver.tableExists(session.conn, table)) present.push(table);
  if (present.length === 0) return [];
  const claims = new Map((await allClaims(ctx, present)).map((c) => [c.table, c]));
  const recorded = (await readLoadMark(ctx, workload.name)) !== undefined;
  const builtIn = isBuiltInWorkload(workload.name) && !isModuleWorkload(workload);
  // A built-in whose table it is and whose load is recorded (from before claims were kept).
  const recordedBuiltIn = async (table: string): Promise<string | undefined> => {
    for (const other of await loadWorkloads())
      if (other.name !== workload.name && other.tables.includes(table) && (await readLoadMark(ctx, other.name)) !== undefined) return other.name;
    return undefined;
  };
  const owners = new Map<string, { owner: string; loadedAt: string | undefined; tables: string[] }>();
  for (const table of present) {
    const claim = claims.get(table);
    let owner: string | undefined;
    let loadedAt: string | undefined;
    if (claim) [owner, loadedAt] = claim.loadedBy === workload.name ? [undefined, undefined] : [claim.loadedBy, claim.loadedAt];
    else if (!recorded) owner = (await recordedBuiltIn(table)) ?? (builtIn ? undefined : NO_LOAD);
    if (owner === undefined) continue;
    const key = `${owner}|${loadedAt ?? ''}`;
    const entry = owners.get(key) ?? { owner, loadedAt, tables: [] };
    entry.tables.push(table);
    owners.set(key, entry);
  }
  return [...owners.values()];
}

/** The owner of a table no headroom load made. */
const NO_LOAD = '';

/**
 * A load drops its workload's tables first: where some are another workload's (a module named
 * its tables as tpcc's, or the reverse), it names them and their owner, and goes on only with
 * --force, for the other's data would be gone without a word. `run` loads only over nothing of
 * another's: it points at `init --force`.
 */
async function refuseReplacingOthers(request: Pick<LoadRequest, 'session' | 'workload' | 'verb' | 'force'>): Promise<void> {
  const { session, workload } = request;
  const others = await othersTables(session, workload);
  if (others.length === 0) return;
  const named = others
    .map((o) =>
      o.owner === NO_LOAD
        ? `${tableList(o.tables)} that no headroom load made`
        : `${tableList(o.tables)} of ${o.owner}${o.loadedAt ? ` (loaded at ${o.loadedAt})` : ''}`,
    )
    .join(' and ');
  const command = `headroom init ${commandName(workload)}`;
  if (request.force && request.verb !== 'run') {
    logLine(`replacing ${named} in ${session.url} with ${workload.name}'s (--force)`);
    return;
  }
  throw new UserError(
    `${request.verb === 'run' ? `run would load ${workload.name} over` : `${request.verb} ${workload.name} would drop`} ${named} in ${session.url}`,
    request.verb === 'run'
      ? `load it over them with ${command} --force, or use another database`
      : `add --force to drop them and load ${workload.name}, or use another database`,
  );
}

function tableList(tables: readonly string[]): string {
  return `${tables.length === 1 ? 'table' : 'tables'} ${tables.join(', ')}`;
}

/** Says what a load replaces before it starts; refuses to shrink a larger dataset without --force. */
export function announceReplacement(request: Pick<LoadRequest, 'workload' | 'present' | 'scale' | 'verb' | 'force'>): void {
  const { workload, present, scale } = request;
  // 0: tables without rows (pgbench -i -I dt), nothing to lose.
  if (!present || present === scale) return;
  const held = `${workload.name} at scale ${formatScale(present)}`;
  if (present > scale && !request.force) {
    throw new UserError(
      `the database holds ${held}, larger than the ${formatScale(scale)} asked: ${request.verb} would drop it to load the smaller one`,
      `add --force to drop it, or ask for scale ${formatScale(present)}`,
    );
  }
  if (present < scale && workload.appendsToSmaller) return;
  logLine(`the database holds ${held}: ${request.verb} drops it and loads scale ${formatScale(scale)}${present > scale ? ' (--force)' : ''}`);
}

/**
 * Data a verb is about to measure or check must be a finished load: headroom's record says so, or,
 * for data another tool made (no record), the workload's own test (tpcb: pgbench -i's row counts).
 */
export async function refuseIncompleteData(session: Session, workload: Workload, options: OptionValues, scale: number): Promise<void> {
  const base = { conn: session.conn, driver: session.driver, dbms: session.target.dbms };
  await refuseOtherWorkloadsData(session, workload, formatScale(scale));
  const recorded = await refuseUnfinishedLoad(session, workload);
  // Another tool may have loaded since headroom's load (tpcb: pgbench -i, on PostgreSQL only). There
  // the workload's own test runs too; elsewhere the record suffices (Firebird's MAX scans).
  const otherLoaderRuns = workload.otherLoader?.runsOn.includes(session.target.dbms) === true;
  if (recorded && (!workload.unrecordedDataProblem || !otherLoaderRuns)) return;
  const problem = workload.unrecordedDataProblem
    ? await workload.unrecordedDataProblem({ ...base, scale, options, log: logLine })
    : 'there is no record that its load finished (it was loaded before headroom kept one, or by another tool)';
  if (problem === undefined) return;
  throw new UserError(`the ${workload.name} data in ${session.url} is not a complete load: ${problem}`, reloadHint(workload, formatScale(scale)));
}

/**
 * Refuses tables another workload loaded since this one's load (a module with the same table
 * names as a built-in, or the reverse): the workload's own record (headroom_load, chain_meta)
 * still stands, but the rows are the other's. Tables without claims (loaded before they were
 * kept) pass.
 */
async function refuseOtherWorkloadsData(session: Session, workload: Workload, scale: string): Promise<void> {
  const claims = await otherClaims({ conn: session.conn, driver: session.driver, dbms: session.target.dbms }, workload.name, workload.tables);
  const last = claims.sort((a, b) => b.loadedAt.localeCompare(a.loadedAt))[0];
  if (!last) return;
  const claimed = workload.tables.filter((table) => claims.some((c) => c.table === table));
  const which = claimed.length === workload.tables.length ? 'the tables' : `tables ${claimed.join(', ')}`;
  throw new UserError(
    `${which} of ${workload.name} in ${session.url} were last loaded by ${last.loadedBy} (at ${last.loadedAt}): they hold its data, not ${workload.name}'s`,
    `load ${workload.name} again: headroom init ${commandName(workload)} -s ${scale}`,
  );
}

/** How the command line names the workload: a module by its file, as it was given. */
function commandName(workload: Workload): string {
  return isModuleWorkload(workload) ? workload.module.path : workload.name;
}

/**
 * Refuses data whose recorded load did not finish, whatever detectScale makes of it (kv's table
 * without its key is no data to it); true when a finished load is recorded.
 */
export async function refuseUnfinishedLoad(session: Session, workload: Workload): Promise<boolean> {
  const mark = await readLoadMark({ conn: session.conn, driver: session.driver, dbms: session.target.dbms }, workload.name);
  if (mark === undefined) return false;
  if (mark.completed !== undefined) return true;
  throw new UserError(
    `the ${workload.name} data in ${session.url} is incomplete: its load at scale ${mark.scale}, started ${mark.started}, did not finish`,
    reloadHint(workload, mark.scale),
  );
}

function reloadHint(workload: Workload, scale: string): string {
  if (workload.appendsToSmaller)
    return `finish it with headroom init ${workload.name} -s ${scale}, which keeps the rows loaded, or remove it: headroom drop ${workload.name}`;
  const otherLoader = workload.otherLoader ? `; ${workload.otherLoader.hint}` : '';
  return `load it again: headroom init ${workload.name} -s ${scale}, or remove it: headroom drop ${workload.name}${otherLoader}`;
}

/** A scale as -s takes it back: whole numbers as they are, fractions (chain) as decimals. */
export function formatScale(scale: number): string {
  return String(scale);
}

/**
 * Wraps the connections a load uses so that after the stop signal no statement, COPY or commit
 * starts (a bulk insert's rows stop at the next row), and keeps what is in flight so that the
 * caller can wait for it before it reports.
 */
class LoadGuard {
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Called when a statement starts or ends: the load is moving. */
  onMove: () => void = () => {};

  constructor(private readonly signal: AbortSignal) {}

  /** A statement (or connect) is in flight: the load waits on the server, not on its own code. */
  get pending(): boolean {
    return this.inFlight.size > 0;
  }

  connection(inner: Connection): Connection {
    return new GuardedConnection(inner, this);
  }

  driver(inner: Driver): Driver {
    const unwrap = (conn: Connection): Connection => (conn instanceof GuardedConnection ? conn.inner : conn);
    return {
      dbms: inner.dbms,
      blocking: inner.blocking,
      pipelines: inner.pipelines,
      ...(inner.durableValues ? { durableValues: inner.durableValues } : {}),
      target: inner.target,
      connect: async () => this.connection(await this.run(() => inner.connect())),
      serverInfo: (conn) => inner.serverInfo(unwrap(conn)),
      connectionBudget: (conn) => inner.connectionBudget(unwrap(conn)),
      dataFolder: (conn) => inner.dataFolder(unwrap(conn)),
      tableExists: (conn, table) => this.run(() => inner.tableExists(unwrap(conn), table)),
      planSetting: (conn, name, value) => inner.planSetting(unwrap(conn), name, value),
      observe: (conn) => inner.observe(unwrap(conn)),
      close: () => inner.close(),
    };
  }

  get stopped(): boolean {
    return this.signal.aborted;
  }

  /** Starts `work` unless the load was stopped; remembers it (also in `own`, a connection's set) until it settles. */
  run<T>(work: () => Promise<T>, own?: Set<Promise<unknown>>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(stopped());
    const promise = work();
    this.inFlight.add(promise);
    own?.add(promise);
    this.onMove();
    const forget = (): void => {
      this.inFlight.delete(promise);
      own?.delete(promise);
      this.onMove();
    };
    promise.then(forget, forget);
    return promise;
  }

  /** The rows of a bulk insert, ending with an error at the first row after the stop. */
  *rows<R extends readonly SqlValue[]>(rows: Iterable<R>): Generator<R> {
    for (const row of rows) {
      if (this.signal.aborted) throw stopped();
      yield row;
    }
  }

  /** Resolves when nothing started before the stop is still running. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}

function stopped(): Error {
  return new Error('the load was interrupted');
}

class GuardedConnection implements Connection {
  /** What this connection has in flight: after the stop, close() waits for it (a COPY cut off by close would never settle). */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    readonly inner: Connection,
    private readonly guard: LoadGuard,
  ) {}

  private run<T>(work: () => Promise<T>): Promise<T> {
    return this.guard.run(work, this.inFlight);
  }

  async prepare(sql: string): Promise<Statement> {
    const statement = await this.run(() => this.inner.prepare(sql));
    return {
      run: (params?: readonly SqlValue[]) => this.run(() => statement.run(params)),
      all: (params?: readonly SqlValue[]) => this.run(() => statement.all(params)),
    };
  }

  query(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.run(() => this.inner.query(sql, params));
  }

  begin(): Promise<void> {
    return this.run(() => this.inner.begin());
  }

  commit(): Promise<void> {
    return this.run(() => this.inner.commit());
  }

  rollback(): Promise<void> {
    // Always allowed: it undoes, never commits.
    return this.inner.rollback();
  }

  bulkInsert(table: string, columns: readonly string[], rows: Iterable<readonly SqlValue[]>): Promise<number> {
    return this.run(() => this.inner.bulkInsert(table, columns, this.guard.rows(rows)));
  }

  async close(): Promise<void> {
    // After the stop each statement in flight ends at its next row; before it, close as asked.
    if (this.guard.stopped) while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    return this.inner.close();
  }
}
