import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Connection, DbmsName, DeclaredType, Row, SqlValue, Statement } from '../../src/drivers/driver.js';
import { Random } from '../../src/common/random.js';
import { chain } from '../../src/workloads/chain/index.js';
import { modelUnit } from '../../src/workloads/chain/model-unit.js';
import type { DataContext, TerminalContext } from '../../src/workloads/workload.js';
import { DBMS_UNDER_TEST, connectFresh } from '../helpers/databases.js';

const SCALE = 0.0002;

/** One thing the unit asked of the real connection, in order; `beginPending` says whether an earlier BEGIN was still unanswered. */
interface Call {
  kind: 'prepare' | 'at-threshold' | 'query' | 'unnamed' | 'run' | 'begin' | 'commit' | 'commit-named';
  sql: string;
  params: readonly SqlValue[];
  beginPending: boolean;
  /** unnamed: BEGIN went in the same write. */
  withBegin?: boolean;
}

/** The real connection, with every call written down before it goes to the server. */
function recording(conn: Connection, calls: Call[]): Connection {
  let pendingBegins = 0;
  const note = (kind: Call['kind'], sql: string, params: readonly SqlValue[] = [], withBegin?: boolean): void =>
    void calls.push({ kind, sql, params, beginPending: pendingBegins > 0, ...(withBegin === undefined ? {} : { withBegin }) });
  const { queryUnnamed, commitNamed, prepareAtThreshold } = conn;
  return {
    ...(queryUnnamed && { queryUnnamed: (sql: string, withBegin: boolean) => (note('unnamed', sql, [], withBegin), queryUnnamed.call(conn, sql, withBegin)) }),
    ...(prepareAtThreshold && {
      prepareAtThreshold(sql: string, threshold: number, types?: readonly DeclaredType[]): Statement {
        note('at-threshold', sql);
        const statement = prepareAtThreshold.call(conn, sql, threshold, types);
        return {
          run: (params = []) => (note('run', sql, params), statement.run(params)),
          all: (params = []) => (note('run', sql, params), statement.all(params)),
        };
      },
    }),
    ...(commitNamed && { commitNamed: () => (note('commit-named', 'COMMIT'), commitNamed.call(conn)) }),
    async prepare(sql: string): Promise<Statement> {
      note('prepare', sql);
      const statement = await conn.prepare(sql);
      return {
        run: (params = []) => (note('run', sql, params), statement.run(params)),
        all: (params = []) => (note('run', sql, params), statement.all(params)),
      };
    },
    query: (sql: string, params: readonly SqlValue[] = []): Promise<Row[]> => (note('query', sql, params), conn.query(sql, params)),
    begin(): Promise<void> {
      note('begin', 'BEGIN');
      pendingBegins++;
      return conn.begin().finally(() => pendingBegins--);
    },
    commit: () => (note('commit', 'COMMIT'), conn.commit()),
    rollback: () => conn.rollback(),
    bulkInsert: (table, columns, rows) => conn.bulkInsert(table, columns, rows),
    close: () => conn.close(),
  };
}

function terminalContext(dbms: DbmsName, statements: string): TerminalContext {
  return {
    terminal: 0,
    terminals: 1,
    transactionsPerTerminal: 3,
    scale: SCALE,
    dbms,
    random: new Random(7),
    options: { mode: 'distributed', statements },
    protocol: 'prepared',
    seed: 7,
  };
}

/** Runs three units of the given style on `conn` and returns what was sent for the last one. */
async function threeUnits(conn: Connection, dbms: DbmsName, statements: string): Promise<Call[]> {
  const { calls, unit } = await recordedUnit(conn, dbms, statements);
  for (let i = 0; i < 3; i++) {
    calls.length = 0;
    await unit();
  }
  return calls;
}

/** The model unit of one terminal on `conn`, with the calls of its preparation and units written to `calls`. */
async function recordedUnit(conn: Connection, dbms: DbmsName, statements: string): Promise<{ calls: Call[]; unit: () => Promise<unknown> }> {
  const calls: Call[] = [];
  return { calls, unit: await modelUnit.prepare(recording(conn, calls), terminalContext(dbms, statements)) };
}

/** One operation per client, so that every unit finds one to update (step 4). */
async function withOperations(conn: Connection): Promise<void> {
  await conn.query('INSERT INTO operation (summa, client_id, op_time) SELECT 1, id, CURRENT_TIMESTAMP FROM client');
}

const ID = /where c\.id=\d+( order by o\.id desc (limit|rows) 100)?$/;

for (const dbms of DBMS_UNDER_TEST) {
  test(`${dbms}: chain --statements study sends the study's statements; prepared prepares all four`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { driver, conn } = fresh;
    const ctx: DataContext = { conn, driver, dbms, scale: SCALE, options: { load: 'bulk' }, log: () => {} };
    await chain.load(ctx);
    await withOperations(conn);
    assert.deepEqual(chain.statements?.({}), { style: 'study', description: chain.statements?.({ statements: 'study' }).description }, 'study is the default');

    const study = await threeUnits(conn, dbms, 'study');
    const selects = study.filter((c) => c.sql.startsWith('select'));
    assert.equal(selects.length, 2);
    for (const select of selects) {
      // pgJDBC's plain Statement: the unnamed statement; elsewhere the text protocol.
      assert.equal(select.kind, dbms === 'postgres' ? 'unnamed' : 'query', 'the joins go as one-off literal SQL');
      assert.match(select.sql, ID, 'the client id is written into the text');
      assert.equal(select.params.length, 0);
    }
    assert.match(selects[0]!.sql, /^select \* from client c left join address a/);
    assert.match(selects[1]!.sql, /^select o\.id, o\.\*, c\.\*, a\.\*, s\.\*, ci\.\*, co\.\* from operation o left join client c/);
    const insert = study.find((c) => c.sql.startsWith('insert'))!;
    assert.ok(insert.params[2] instanceof Date, 'op_time is the client clock, bound');
    assert.equal(study.at(-1)!.kind, dbms === 'postgres' ? 'commit-named' : 'commit');
    if (dbms === 'mariadb') {
      // Connector/J 2.x: values filled in by the client (text protocol), autocommit=0 and no BEGIN.
      assert.deepEqual(
        study.map((c) => c.kind),
        ['query', 'query', 'query', 'query', 'commit'],
      );
    } else if (dbms === 'postgres') {
      // pgJDBC: BEGIN inside the first select's write, no begin() of its own.
      assert.deepEqual(
        study.map((c) => c.kind),
        ['unnamed', 'unnamed', 'run', 'run', 'commit-named'],
      );
      assert.deepEqual(
        selects.map((c) => c.withBegin),
        [true, false],
      );
    } else {
      assert.equal(study[0]!.kind, 'begin');
      assert.deepEqual(
        study.filter((c) => c.sql.startsWith('update') || c.sql.startsWith('insert')).map((c) => c.kind),
        ['run', 'run'],
      );
    }
    if (dbms === 'sqlite' || dbms === 'firebird') assert.equal(study[1]!.beginPending, false);

    const prepared = await threeUnits(conn, dbms, 'prepared');
    assert.deepEqual(
      prepared.map((c) => c.kind),
      ['begin', 'run', 'run', 'run', 'run', 'commit'],
    );
    assert.equal(prepared[2]!.beginPending, false);
  });
}

for (const dbms of ['postgres', 'mariadb'] as const) {
  test(`${dbms}: the server sees what each style sends (its own prepared statements and transaction counters)`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { driver, conn } = fresh;
    await chain.load({ conn, driver, dbms, scale: SCALE, options: { load: 'bulk' }, log: () => {} });
    await withOperations(conn);
    const [prepares, begins, statementsNow] =
      dbms === 'postgres'
        ? [async (c: Connection) => Number((await c.query('SELECT count(*) FROM pg_prepared_statements'))[0]![0]), undefined, undefined]
        : [
            async (c: Connection) =>
              Number((await c.query("SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'COM_STMT_PREPARE'"))[0]![0]),
            async (c: Connection) =>
              Number((await c.query("SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'COM_BEGIN'"))[0]![0]),
            async (c: Connection) => String((await c.query('SELECT @@autocommit'))[0]![0]),
          ];
    for (const [style, preparedCount] of [
      // pgJDBC's: COMMIT named on the server from the first unit, update and insert only from their 5th execution.
      ['study', dbms === 'postgres' ? 1 : 0],
      ['prepared', 4],
    ] as const) {
      const own = await driver.connect();
      try {
        const beginsBefore = begins ? await begins(own) : 0;
        await threeUnits(own, dbms, style);
        assert.equal(await prepares(own), preparedCount, `${style}: statements prepared on the server`);
        if (begins) assert.equal((await begins(own)) - beginsBefore, style === 'study' ? 0 : 3, `${style}: BEGINs sent`);
        if (statementsNow) assert.equal(await statementsNow(own), style === 'study' ? '0' : '1');
      } finally {
        await own.close();
      }
    }
  });
}

test('postgres: chain --statements study names the update and the insert at their 5th execution, as pgJDBC (prepareThreshold=5)', async (t) => {
  const fresh = await connectFresh(t, 'postgres');
  if (!fresh) return;
  const { driver, conn } = fresh;
  await chain.load({ conn, driver, dbms: 'postgres', scale: SCALE, options: { load: 'bulk' }, log: () => {} });
  await withOperations(conn);
  const own = await driver.connect();
  t.after(() => own.close());
  const named = async (): Promise<string[]> => (await own.query('SELECT statement FROM pg_prepared_statements ORDER BY prepare_time')).map((r) => String(r[0]));
  const { calls, unit } = await recordedUnit(own, 'postgres', 'study');
  assert.deepEqual(
    calls.filter((c) => c.kind === 'prepare' || c.kind === 'at-threshold').map((c) => c.kind),
    ['at-threshold', 'at-threshold'],
    'nothing prepared before the first unit',
  );
  for (let i = 0; i < 4; i++) await unit();
  assert.deepEqual(await named(), ['COMMIT'], 'after 4 units: only COMMIT');
  await unit();
  const after5 = await named();
  assert.equal(after5.length, 3, `after 5 units: COMMIT, the update and the insert (${after5.join('; ')})`);
  assert.match(after5[1]!, /^update operation set summa=\$1 where id=\$2$/);
  assert.match(after5[2]!, /^insert into operation \(summa, client_id, op_time\) values \(\$1,\$2,\$3\)$/);
  await unit();
  assert.equal((await named()).length, 3, 'named once');
});
