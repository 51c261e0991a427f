import { performance } from 'node:perf_hooks';
import type { Connection } from '../../drivers/driver.js';
import type { DataContext, PlanningSample } from '../workload.js';
import { RefGenerator, START_R } from './generator.js';
import { READ_CLIENT, readOperationsSql, statementStyle } from './model-unit.js';
import { chainDialect, type PlanningMethod } from './dialect.js';
import { chainSizes } from './sizes.js';
import { DATA_TABLES } from './schema.js';
import { studyReadClientSql, studyReadOperationsSql } from './statements.js';

/** Calls of each join measured; medians, so that one call slowed by another process does not decide. */
export const PLANNING_SAMPLES = 15;
/** PostgreSQL switches a prepared statement to its generic plan after five custom-planned executions. */
const CUSTOM_PLANS = 5;

interface Join {
  name: string;
  literal(clientId: number): string;
  prepared: string;
}

/**
 * How the server's time for the unit's two joins splits between planning and executing, measured
 * after the run on `ctx.conn`: each join is sent the way the run's style sends it (on PostgreSQL
 * under the study style through the unnamed statement, as the run did), with the clients a fresh
 * generator draws. The update and insert are prepared in both styles on PostgreSQL (under the
 * study style from their 5th execution per terminal on, pgJDBC's prepareThreshold), and cheap to
 * plan on MariaDB, so they are left out (the method says so).
 */
export async function samplePlanning(ctx: DataContext): Promise<PlanningSample | undefined> {
  const method = chainDialect(ctx.dbms).planning;
  if (method === undefined) return undefined;
  const joins: Join[] = [
    { name: 'client with its chain (step 2)', literal: studyReadClientSql, prepared: READ_CLIENT },
    { name: 'latest operations (step 3)', literal: (id) => studyReadOperationsSql(ctx.dbms, id), prepared: readOperationsSql(ctx.dbms) },
  ];
  const clientCount = chainSizes(ctx.scale).clientsPerBatch;
  const refs = new RefGenerator(START_R);
  const ids = Array.from({ length: PLANNING_SAMPLES }, () => refs.nextRef(clientCount));
  const style = statementStyle(ctx.options);
  const unnamed = chainDialect(ctx.dbms).study.joins === 'unnamed';
  const sendLiteral = literalSender(unnamed);
  const statements: PlanningSample['statements'] = [];
  let textOverhead = 0;
  for (const [i, join] of joins.entries()) {
    const times =
      method === 'analyze-json'
        ? await analyzeJsonTimes(ctx.conn, join, ids)
        : style === 'study'
          ? await explainLiteralTimes(ctx.conn, join, ids, sendLiteral)
          : await explainPreparedTimes(ctx.conn, join, ids, `headroom_planning_${i}`);
    statements.push({ name: join.name, planningMs: median(times.map((t) => t[0])), executionMs: median(times.map((t) => t[1])) });
    if (method === 'explain-summary' && style === 'study') textOverhead += await textOverheadMs(ctx, join, ids);
  }
  const statistics = await statisticsNote(ctx);
  const sum = (pick: (s: (typeof statements)[number]) => number): number => round(statements.reduce((n, s) => n + pick(s), 0));
  return {
    method: methodText(method, style, unnamed),
    statements,
    planningMsPerUnit: sum((s) => s.planningMs),
    executionMsPerUnit: sum((s) => s.executionMs),
    ...(method === 'explain-summary' && style === 'study' ? { textOverheadMsPerUnit: round(Math.max(0, textOverhead)) } : {}),
    avoidedBy:
      method === 'analyze-json'
        ? 'nothing on the client side: MariaDB optimises every execution, prepared or not (here the chain resolves as const tables, read while optimising)'
        : style === 'study'
          ? 'preparing the two joins (--statements prepared): PostgreSQL then reuses one plan per terminal instead of planning each call'
          : 'already avoided: the joins are prepared and PostgreSQL reuses their plan',
    ...(statistics === undefined ? {} : { statistics }),
  };
}

/**
 * The chain's tables that hold rows but were never analyzed: their plans rest on the planner's
 * default estimates. The load analyzes what it fills, but operation starts empty and only runs
 * fill it; a server without automatic statistics (PostgreSQL's autovacuum off) never analyzes it,
 * and the latest-operations join's plan then changes as the table grows (the study's servers ran
 * with their default settings, autovacuum on).
 */
async function statisticsNote(ctx: DataContext): Promise<string | undefined> {
  const query = chainDialect(ctx.dbms).neverAnalyzed;
  if (query === undefined) return undefined;
  const rows = (await ctx.conn.query(query(DATA_TABLES))) as [string, number | string, string][];
  if (rows.length === 0) return undefined;
  const tables = rows.map(([name, live]) => `${name} (${Number(live).toLocaleString('en-US')} rows)`).join(', ');
  const [it, its] = rows.length === 1 ? ['it', 'its'] : ['them', 'their'];
  const automatic = rows[0]![2] === 'on' ? `autovacuum has not analyzed ${it} yet` : 'autovacuum is off on this server';
  return (
    `${tables} never analyzed (${automatic}): the planner estimated ${its} rows from defaults, ` +
    `not from statistics; ANALYZE ${rows.map(([name]) => name).join(', ')} or autovacuum on (the study's servers ran with their defaults) gives them`
  );
}

function methodText(method: PlanningMethod, style: string, unnamed: boolean): string {
  const how = unnamed ? ' through the unnamed statement (Parse, Bind, Describe, Execute, Sync)' : ' as simple Query messages';
  const after =
    `${PLANNING_SAMPLES} calls of each of the two joins after the run, medians; update and insert not sampled` +
    (method === 'explain-summary' && style === 'study'
      ? `; text cost: each literal join's fastest round trip${how}, as the run sent it, less that of the same join prepared` +
        ` (Bind, Execute, Sync of its plan after ${CUSTOM_PLANS} executions), on a connection of its own`
      : '');
  if (method === 'analyze-json') return `sampled: ANALYZE FORMAT=JSON (query_optimization against query_block time), ${after}`;
  return style === 'study'
    ? `sampled: EXPLAIN (ANALYZE, SUMMARY) of the literal text${how}, as this run sent it, ${after}`
    : `sampled: EXPLAIN (ANALYZE, SUMMARY) EXECUTE of the prepared joins after ${CUSTOM_PLANS} executions (the plan the run reused), ${after}`;
}

/** How the run's study style sent a literal join: through the unnamed statement where the dialect says so (pgJDBC's plain Statement), else as text. */
type LiteralSender = (conn: Connection, sql: string) => Promise<unknown[][]>;

function literalSender(unnamed: boolean): LiteralSender {
  return unnamed ? (conn, sql) => (conn.queryUnnamed ? conn.queryUnnamed(sql, false) : conn.query(sql)) : (conn, sql) => conn.query(sql);
}

/** [planning ms, execution ms] per call. */
type Times = [number, number][];

async function explainLiteralTimes(conn: Connection, join: Join, ids: readonly number[], send: LiteralSender): Promise<Times> {
  const times: Times = [];
  for (const id of ids) times.push(explainTimes(await send(conn, `EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) ${join.literal(id)}`)));
  return times;
}

async function explainPreparedTimes(conn: Connection, join: Join, ids: readonly number[], name: string): Promise<Times> {
  await conn.query(`PREPARE ${name} AS ${join.prepared.replace('?', '$1')}`);
  try {
    for (let i = 0; i < CUSTOM_PLANS; i++) await conn.query(`EXECUTE ${name}(${ids[i % ids.length]})`);
    const times: Times = [];
    for (const id of ids) times.push(explainTimes(await conn.query(`EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) EXECUTE ${name}(${id})`)));
    return times;
  } finally {
    await conn.query(`DEALLOCATE ${name}`);
  }
}

/**
 * What sending a join as literal text costs beyond running it prepared: the fastest round trip of
 * the literal text, sent as the run sent it (through the unnamed statement on PostgreSQL: Parse,
 * Bind, Describe, Execute, Sync), less that of the same join as a prepared statement (Bind,
 * Execute, Sync, its plan after the custom-planned executions), on one connection opened for this
 * and closed after, so that nothing prepared outlives it. The network, the execution and the rows
 * are alike in both; the difference is parsing, analysing and planning the text.
 */
async function textOverheadMs(ctx: DataContext, join: Join, ids: readonly number[]): Promise<number> {
  const send = literalSender(chainDialect(ctx.dbms).study.joins === 'unnamed');
  const conn = await ctx.driver.connect();
  try {
    const statement = await conn.prepare(join.prepared);
    for (let i = 0; i < CUSTOM_PLANS; i++) await statement.all([ids[i % ids.length]!]);
    const literal: number[] = [];
    const prepared: number[] = [];
    for (const id of ids) {
      literal.push(await roundTripMs(() => send(conn, join.literal(id))));
      prepared.push(await roundTripMs(() => statement.all([id])));
    }
    // The fastest of each: round trips on a shared machine only ever get slower than the work itself.
    return Math.min(...literal) - Math.min(...prepared);
  } finally {
    await conn.close();
  }
}

async function roundTripMs(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

function explainTimes(rows: unknown[][]): [number, number] {
  const [plan] = json(rows) as [{ 'Planning Time': number; 'Execution Time': number }];
  return [plan['Planning Time'], plan['Execution Time']];
}

async function analyzeJsonTimes(conn: Connection, join: Join, ids: readonly number[]): Promise<Times> {
  const times: Times = [];
  for (const id of ids) {
    const doc = json(await conn.query(`ANALYZE FORMAT=JSON ${join.literal(id)}`)) as {
      query_optimization?: { r_total_time_ms: number };
      query_block: { r_total_time_ms?: number };
    };
    // MariaDB before 10.11 does not report optimisation time: no figure rather than a zero.
    if (doc.query_optimization === undefined) throw new Error('this MariaDB does not report optimisation time in ANALYZE FORMAT=JSON');
    times.push([doc.query_optimization.r_total_time_ms, doc.query_block.r_total_time_ms ?? 0]);
  }
  return times;
}

function json(rows: unknown[][]): unknown {
  const value = rows[0]?.[0];
  return typeof value === 'string' ? JSON.parse(value) : value;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return round(sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2);
}

/** To 0.1 us: MariaDB executes a chain of const tables in about a microsecond, which whole microseconds would record as zero. */
function round(v: number): number {
  return Math.round(v * 10000) / 10000;
}
