import type { Connection, DbmsName, Row, SqlValue } from '../../drivers/driver.js';
import { chainDialect } from './dialect.js';

/**
 * How the model unit's statements reach the server (chain-model.md, "How the study's program sends
 * the transaction"). study: what the study's JDBC program sends, statement for statement and round
 * trip for round trip; prepared: both selects prepared too, the improvement a user would make.
 */
export const STATEMENT_STYLES = ['study', 'prepared'] as const;
export type StatementStyle = (typeof STATEMENT_STYLES)[number];

/** What each style sends, as the summary and the result describe it. */
export const STATEMENT_STYLE_HELP: Record<StatementStyle, string> = {
  study: "the study's program: both joins as literal SQL text (planned at every call), update and insert as its JDBC driver sent them, client timestamp",
  prepared: 'every statement prepared once per terminal (both joins planned once)',
};

/** The model unit's statements, one call per step; the unit's logic (model-unit.ts) is the same for every style. */
export interface UnitStatements {
  /** Step 2; it also opens the transaction where the style sends a BEGIN. */
  readClient(clientId: number): Promise<Row[]>;
  /** Step 3: up to 100 rows, the operation's id first. */
  readOperations(clientId: number): Promise<Row[]>;
  /** Step 4. */
  updateOperation(summa: number, operationId: number): Promise<unknown>;
  /** Step 5. */
  insertOperation(summa: number, clientId: number): Promise<unknown>;
  /** Step 6. */
  commit(): Promise<void>;
}

// The study's statement texts (its SQL shapes; our spelling).
const STUDY_CHAIN =
  'left join address a on c.address_id=a.id left join street s on s.id=a.street_id left join city ci on ci.id=s.city_id left join country co on co.id=ci.country_id';
const STUDY_READ_CLIENT = `select * from client c ${STUDY_CHAIN} where c.id=`;
const STUDY_READ_OPERATIONS = `select o.id, o.*, c.*, a.*, s.*, ci.*, co.* from operation o left join client c on o.client_id=c.id ${STUDY_CHAIN} where c.id=`;
export const STUDY_UPDATE = 'update operation set summa=? where id=?';
export const STUDY_INSERT = 'insert into operation (summa, client_id, op_time) values (?,?,?)';

/** Step 2 as the study sends it: the client id written into the text. */
export function studyReadClientSql(clientId: number): string {
  return STUDY_READ_CLIENT + clientId;
}

/** Step 3 as the study sends it. */
export function studyReadOperationsSql(dbms: DbmsName, clientId: number): string {
  return `${STUDY_READ_OPERATIONS}${clientId} order by o.id desc ${chainDialect(dbms).latestHundred}`;
}

/**
 * The study's sending, as its JDBC driver did it on each DBMS (dialect.ts, `study`): both joins as
 * literal text, parsed and planned at every call; the update and the insert prepared on the server
 * (pgJDBC) or as text with the values filled in by the client (Connector/J 2.x); BEGIN written with
 * the first query without waiting for its answer (one round trip), or none with the session at
 * autocommit=0. The insert binds the client's clock as op_time, as the study's program does.
 */
export async function studyStatements(conn: Connection, dbms: DbmsName): Promise<UnitStatements> {
  const { sessionSetup, begin, writes } = chainDialect(dbms).study;
  for (const sql of sessionSetup) await conn.query(sql);
  const [update, insert] = writes === 'prepared' ? [await conn.prepare(STUDY_UPDATE), await conn.prepare(STUDY_INSERT)] : [undefined, undefined];
  const readClientSql = (clientId: number): Promise<Row[]> => conn.query(studyReadClientSql(clientId));
  return {
    readClient:
      begin === 'implicit'
        ? readClientSql
        : begin === 'with-first-query'
          ? // Both are written before either answer is read: the wire client queues requests in order.
            (clientId) => Promise.all([conn.begin(), readClientSql(clientId)]).then(secondOf)
          : (clientId) => conn.begin().then(() => readClientSql(clientId)),
    readOperations: (clientId) => conn.query(studyReadOperationsSql(dbms, clientId)),
    updateOperation: update ? (summa, operationId) => update.run([summa, operationId]) : (summa, operationId) => conn.query(STUDY_UPDATE, [summa, operationId]),
    insertOperation: insert
      ? (summa, clientId) => insert.run([summa, clientId, new Date()] as SqlValue[])
      : (summa, clientId) => conn.query(STUDY_INSERT, [summa, clientId, new Date()]),
    commit: () => conn.commit(),
  };
}

const secondOf = (pair: [void, Row[]]): Row[] => pair[1];
