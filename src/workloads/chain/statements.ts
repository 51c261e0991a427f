import type { Connection, DbmsName, DeclaredType, Row, SqlValue, Statement } from '../../drivers/driver.js';
import { chainDialect, type StudySending } from './dialect.js';
import { UserError } from '../../errors.js';

/**
 * How the model unit's statements reach the server (chain-model.md, "How the study's program sends
 * the transaction"). study: what the study's JDBC program sends, statement for statement and round
 * trip for round trip; prepared: both selects prepared too, the improvement a user would make.
 */
export const STATEMENT_STYLES = ['study', 'prepared'] as const;
export type StatementStyle = (typeof STATEMENT_STYLES)[number];

/** What each style sends, as the summary and the result describe it; study's words per DBMS are describeStudySending's. */
export const STATEMENT_STYLE_HELP: Record<StatementStyle, string> = {
  study: "the study's program: both joins as literal SQL (planned at every call), the rest as its JDBC driver sent it, client timestamp",
  prepared: 'every statement prepared once per terminal (both joins planned once)',
};

/** What a style sends on `dbms`, in words, for the result's `statements.description`. */
export function describeStatements(style: StatementStyle, dbms: DbmsName | undefined): string {
  return style === 'study' && dbms !== undefined ? describeStudySending(chainDialect(dbms).study) : STATEMENT_STYLE_HELP[style];
}

/** The study style's sending on one DBMS, said from the dialect's own fields (dialect.ts), so that the words follow the code. */
export function describeStudySending(sending: StudySending): string {
  const joins =
    sending.joins === 'unnamed'
      ? 'both joins as literal SQL through the unnamed statement (Parse, Bind, Describe, Execute, Sync: parsed and planned at every call)'
      : 'both joins as literal SQL text (parsed and planned at every call)';
  const begin = {
    'with-first-query': "BEGIN in the first join's round trip",
    implicit: 'autocommit=0, no BEGIN',
    'own-round-trip': 'BEGIN in a round trip of its own',
  }[sending.begin];
  const writes = {
    prepared: 'update and insert prepared once per terminal',
    'at-threshold': `update and insert through the unnamed statement for their first ${(sending.prepareThreshold ?? 1) - 1} executions per terminal (parsed and planned at each), prepared under a name at the ${ordinal(sending.prepareThreshold ?? 1)}`,
    text: 'update and insert as text with the values filled in by the client',
  }[sending.writes];
  const commit = sending.commit === 'named' ? 'COMMIT as a named statement parsed at its first use' : 'COMMIT as text';
  const who = sending.driver ? `the study's program as ${sending.driver} sent it` : "the study's statements (the study did not run on this DBMS)";
  return `${who}: ${joins}, ${begin}, ${writes}, ${commit}, op_time from the client's clock`;
}

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
/** The parameters' types as the study's program declares them through its setters: setInt, setLong; setInt, setInt, setTimestamp. */
const STUDY_UPDATE_TYPES: readonly DeclaredType[] = ['integer', 'bigint'];
const STUDY_INSERT_TYPES: readonly DeclaredType[] = ['integer', 'integer', 'unspecified'];

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
 * literal SQL, parsed and planned at every call, through PostgreSQL's unnamed statement (pgJDBC's
 * plain Statement) or as text; the update and the insert as pgJDBC's PreparedStatements (unnamed
 * until its prepareThreshold, then named), or as text with the values filled in by the client
 * (Connector/J 2.x); BEGIN written in the first
 * join's write (one round trip), or none with the session at autocommit=0; COMMIT as pgJDBC keeps
 * it (a named statement) or as text. The insert binds the client's clock as op_time, as the study's program does.
 */
export async function studyStatements(conn: Connection, dbms: DbmsName): Promise<UnitStatements> {
  const sending = chainDialect(dbms).study;
  const { sessionSetup, begin, writes } = sending;
  const { queryUnnamed, commitNamed, prepareAtThreshold } = conn;
  // A connection that cannot send this way (a replica router) would send something else under the study's name.
  if (
    (sending.joins === 'unnamed' && queryUnnamed === undefined) ||
    (sending.commit === 'named' && commitNamed === undefined) ||
    (sending.writes === 'at-threshold' && prepareAtThreshold === undefined)
  ) {
    throw new UserError(
      `chain --statements study sends the joins and COMMIT as ${sending.driver ?? 'the study'} did, which a connection routed to replicas cannot`,
      'use --statements prepared, or run without replicas',
    );
  }
  for (const sql of sessionSetup) await conn.query(sql);
  const threshold = sending.prepareThreshold ?? 1;
  const [update, insert]: [Statement | undefined, Statement | undefined] =
    writes === 'prepared'
      ? [await conn.prepare(STUDY_UPDATE), await conn.prepare(STUDY_INSERT)]
      : writes === 'at-threshold'
        ? [
            prepareAtThreshold!.call(conn, STUDY_UPDATE, threshold, STUDY_UPDATE_TYPES),
            prepareAtThreshold!.call(conn, STUDY_INSERT, threshold, STUDY_INSERT_TYPES),
          ]
        : [undefined, undefined];
  const send: (sql: string, opensTransaction: boolean) => Promise<Row[]> =
    sending.joins === 'unnamed'
      ? (sql, opensTransaction) => queryUnnamed!.call(conn, sql, opensTransaction)
      : (sql, opensTransaction) =>
          opensTransaction
            ? // Both are written before either answer is read: the wire client queues requests in order.
              Promise.all([conn.begin(), conn.query(sql)]).then(secondOf)
            : conn.query(sql);
  const readClient =
    begin === 'own-round-trip'
      ? (clientId: number) => conn.begin().then(() => send(studyReadClientSql(clientId), false))
      : (clientId: number) => send(studyReadClientSql(clientId), begin === 'with-first-query');
  return {
    readClient,
    readOperations: (clientId) => send(studyReadOperationsSql(dbms, clientId), false),
    updateOperation: update ? (summa, operationId) => update.run([summa, operationId]) : (summa, operationId) => conn.query(STUDY_UPDATE, [summa, operationId]),
    insertOperation: insert
      ? (summa, clientId) => insert.run([summa, clientId, new Date()] as SqlValue[])
      : (summa, clientId) => conn.query(STUDY_INSERT, [summa, clientId, new Date()]),
    commit: sending.commit === 'named' ? () => commitNamed!.call(conn) : () => conn.commit(),
  };
}

const secondOf = (pair: [void, Row[]]): Row[] => pair[1];

/** 5th, 1st, 2nd, 3rd, 11th... */
function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
