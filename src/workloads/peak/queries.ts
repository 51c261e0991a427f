import type { TransactionType } from '../workload.js';
import { peakDialect, type JoinKind } from './dialect.js';
import { JOIN_ROWS, REFERENCE_TABLE } from './schema.js';

/**
 * The seven queries of the simple-query peak study (docs/experiments.md section 4), in its order,
 * with the clients it ran each with. Each runs on its own, outside a transaction block.
 */
export interface PeakQuery {
  number: number;
  name: string;
  /** The study's wording of the query, for the table. */
  title: string;
  /** Clients the study ran it with. */
  clients: number;
  type: TransactionType;
}

const constant: TransactionType = {
  name: 'constant',
  weight: 1,
  async prepare(conn, terminal) {
    const select = await conn.prepare(peakDialect(terminal.dbms).selectConstant);
    return async () => void (await select.all());
  },
};

const reference: TransactionType = {
  name: 'reference',
  weight: 1,
  async prepare(conn) {
    const select = await conn.prepare(`SELECT code FROM ${REFERENCE_TABLE}`);
    return async () => void (await select.all());
  },
};

function temporaryTable(name: string, indexed: boolean): TransactionType {
  return {
    name,
    weight: 1,
    async prepare(conn, terminal) {
      // DDL goes as text: SQLite cannot prepare a DROP of a table that does not exist yet.
      const statements = peakDialect(terminal.dbms).temporaryTable(indexed);
      return async () => {
        for (const sql of statements) await conn.query(sql);
      };
    },
  };
}

function selfJoin(name: string, kind: JoinKind): TransactionType {
  return {
    name,
    weight: 1,
    async prepare(conn, terminal) {
      // The temporary table lives as long as the connection: made once here, not timed.
      for (const sql of peakDialect(terminal.dbms).joinTable) await conn.query(sql);
      const insert = await conn.prepare('INSERT INTO peak_join (n, code) VALUES (?, ?)');
      await conn.begin();
      for (let n = 1; n <= JOIN_ROWS; n++) await insert.run([n, `C${String(n).padStart(8, '0')}`]);
      await conn.commit();
      const select = await conn.prepare(peakDialect(terminal.dbms).joinQuery(kind, Number(terminal.options['join-rows'] ?? 1)));
      return async () => void (await select.all());
    },
  };
}

export const PEAK_QUERIES: readonly PeakQuery[] = [
  { number: 1, name: 'constant', title: 'SELECT 1+1', clients: 90, type: constant },
  { number: 2, name: 'reference', title: 'select the code column from a small reference table', clients: 90, type: reference },
  { number: 3, name: 'temp-table', title: 'create a temporary table with SELECT 1+1 in it', clients: 26, type: temporaryTable('temp-table', false) },
  { number: 4, name: 'temp-index', title: 'same, plus an index on the temporary table', clients: 26, type: temporaryTable('temp-index', true) },
  { number: 5, name: 'full-join', title: 'full join of a 625-row temporary table with itself', clients: 9, type: selfJoin('full-join', 'full') },
  { number: 6, name: 'left-join', title: 'left join of it with itself', clients: 9, type: selfJoin('left-join', 'left') },
  { number: 7, name: 'cross-join', title: 'cartesian product of it with itself', clients: 9, type: selfJoin('cross-join', 'cross') },
];

/** A query by its name or its number in the study's table. */
export function findPeakQuery(text: string): PeakQuery | undefined {
  return PEAK_QUERIES.find((q) => q.name === text || String(q.number) === text);
}
