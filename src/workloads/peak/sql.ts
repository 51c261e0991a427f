import type { DbmsName } from '../../drivers/driver.js';

/** Firebird selects a constant from its one-row system table; the others need no FROM. */
export function selectConstant(dbms: DbmsName): string {
  return dbms === 'firebird' ? 'SELECT 1+1 FROM RDB$DATABASE' : 'SELECT 1+1';
}

/**
 * Queries 3 and 4: create a temporary table holding SELECT 1+1 (with an index for query 4) and
 * drop it again, as the study's platform does with each query's temporary tables. Firebird
 * inserts into a global temporary table whose rows go at commit (schema.ts says why).
 */
export function temporaryTableStatements(dbms: DbmsName, indexed: boolean): string[] {
  switch (dbms) {
    case 'firebird':
      return [`INSERT INTO ${indexed ? 'peak_tmp_indexed' : 'peak_tmp'} (x) SELECT 1+1 FROM RDB$DATABASE`];
    case 'mariadb':
      return [
        'CREATE TEMPORARY TABLE peak_tmp AS SELECT 1+1 AS x',
        ...(indexed ? ['CREATE INDEX peak_tmp_x ON peak_tmp (x)'] : []),
        'DROP TEMPORARY TABLE peak_tmp',
      ];
    case 'postgres':
    case 'sqlite':
      return ['CREATE TEMPORARY TABLE peak_tmp AS SELECT 1+1 AS x', ...(indexed ? ['CREATE INDEX peak_tmp_x ON peak_tmp (x)'] : []), 'DROP TABLE peak_tmp'];
  }
}

export type JoinKind = 'full' | 'left' | 'cross';

/**
 * Queries 5-7 over the 625-row temporary table joined with itself, returning the first `rows` of
 * the 390,625 (the study does not say how many its queries fetched; its rates rule out all).
 * MariaDB has no FULL JOIN: it gets the usual rewrite, a LEFT JOIN plus the right side's rows
 * without a partner, which is also how the study's platform sent a full join to PostgreSQL.
 */
export function joinQuery(dbms: DbmsName, kind: JoinKind, rows: number): string {
  const join = kind === 'cross' ? 'CROSS JOIN peak_join b' : `${kind === 'full' ? 'FULL' : 'LEFT'} JOIN peak_join b ON 1 = 1`;
  if (dbms === 'mariadb' && kind === 'full') {
    // Each branch limited too: MariaDB would otherwise materialise the whole union before the LIMIT.
    return `(SELECT a.n, b.n FROM peak_join a LEFT JOIN peak_join b ON 1 = 1 LIMIT ${rows}) UNION ALL (SELECT NULL, b.n FROM peak_join b WHERE NOT EXISTS (SELECT 1 FROM peak_join a) LIMIT ${rows}) LIMIT ${rows}`;
  }
  const select = `SELECT a.n, b.n FROM peak_join a ${join}`;
  return dbms === 'postgres' || dbms === 'firebird' ? `${select} FETCH FIRST ${rows} ROWS ONLY` : `${select} LIMIT ${rows}`;
}
