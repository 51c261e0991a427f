import type { DbmsName } from '../../drivers/driver.js';

/**
 * pgbench's four tables with pgbench's names and column types, so pgbench and headroom can run
 * against the same database in turn. Row counts per unit of scale follow pgbench (and TPC-B 4.2):
 * 1 branch, 10 tellers, 100,000 accounts.
 */
export const TABLES = ['pgbench_history', 'pgbench_tellers', 'pgbench_accounts', 'pgbench_branches'] as const;

export const ROWS_PER_SCALE = { branches: 1, tellers: 10, accounts: 100_000 } as const;

/**
 * pgbench switches aid to bigint from this scale on (its SCALE_32BIT_THRESHOLD): 100,000 accounts
 * per unit pass 2^31 - 1 above scale 21,474, and pgbench keeps a margin.
 */
export const BIGINT_SCALE = 20_000;

/** The type of aid at this scale, as pgbench chooses it (SQLite's INTEGER is 64 bits at every scale). */
export function aidType(dbms: DbmsName, scale: number): string {
  const big = scale >= BIGINT_SCALE;
  if (dbms === 'sqlite') return 'INTEGER';
  if (dbms === 'firebird') return big ? 'BIGINT' : 'INTEGER';
  return big ? 'bigint' : 'int';
}

export function createTableStatements(dbms: DbmsName, scale: number): string[] {
  const aid = aidType(dbms, scale);
  switch (dbms) {
    case 'postgres':
      // As pgbench -i: no keys while loading (they are added after COPY), fillfactor 100.
      return [
        `CREATE TABLE pgbench_history (tid int, bid int, aid ${aid}, delta int, mtime timestamp, filler char(22))`,
        'CREATE TABLE pgbench_tellers (tid int NOT NULL, bid int, tbalance int, filler char(84)) WITH (fillfactor = 100)',
        `CREATE TABLE pgbench_accounts (aid ${aid} NOT NULL, bid int, abalance int, filler char(84)) WITH (fillfactor = 100)`,
        'CREATE TABLE pgbench_branches (bid int NOT NULL, bbalance int, filler char(88)) WITH (fillfactor = 100)',
      ];
    case 'mariadb':
      // InnoDB clusters rows by primary key: declaring it up front and loading in key order is
      // faster than rebuilding the table for ALTER TABLE ... ADD PRIMARY KEY afterwards.
      return [
        `CREATE TABLE pgbench_history (tid int, bid int, aid ${aid}, delta int, mtime datetime, filler char(22)) ENGINE = InnoDB`,
        'CREATE TABLE pgbench_tellers (tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84)) ENGINE = InnoDB',
        `CREATE TABLE pgbench_accounts (aid ${aid} NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84)) ENGINE = InnoDB`,
        'CREATE TABLE pgbench_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88)) ENGINE = InnoDB',
      ];
    case 'sqlite':
      // INTEGER PRIMARY KEY makes the key the rowid: no second b-tree to maintain.
      return [
        `CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid ${aid}, delta INTEGER, mtime TEXT, filler CHAR(22))`,
        'CREATE TABLE pgbench_tellers (tid INTEGER PRIMARY KEY, bid INTEGER, tbalance INTEGER, filler CHAR(84))',
        `CREATE TABLE pgbench_accounts (aid ${aid} PRIMARY KEY, bid INTEGER, abalance INTEGER, filler CHAR(84))`,
        'CREATE TABLE pgbench_branches (bid INTEGER PRIMARY KEY, bbalance INTEGER, filler CHAR(88))',
      ];
    case 'firebird':
      // As pgbench -i: keys come after the load (Firebird then builds each index by one sort).
      // CURRENT_TIMESTAMP in the tpcb-like insert is standard SQL and works as it is.
      return [
        `CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid ${aid}, delta INTEGER, mtime TIMESTAMP, filler CHAR(22))`,
        'CREATE TABLE pgbench_tellers (tid INTEGER NOT NULL, bid INTEGER, tbalance INTEGER, filler CHAR(84))',
        `CREATE TABLE pgbench_accounts (aid ${aid} NOT NULL, bid INTEGER, abalance INTEGER, filler CHAR(84))`,
        'CREATE TABLE pgbench_branches (bid INTEGER NOT NULL, bbalance INTEGER, filler CHAR(88))',
      ];
  }
}

const PRIMARY_KEYS = [
  'ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)',
  'ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid)',
  'ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)',
];

/** Statements run after the data is in: keys and statistics, as pgbench -i, where they are not declared up front. */
export function afterLoadStatements(dbms: DbmsName): { name: string; sql: string[] }[] {
  // A new index has fresh selectivity statistics in Firebird: nothing to analyze.
  if (dbms === 'firebird') return [{ name: 'primary keys', sql: PRIMARY_KEYS }];
  if (dbms !== 'postgres')
    return dbms === 'sqlite'
      ? [{ name: 'analyze', sql: ['ANALYZE'] }]
      : [{ name: 'analyze', sql: ['ANALYZE TABLE pgbench_branches, pgbench_tellers, pgbench_accounts'] }];
  return [
    {
      name: 'vacuum',
      sql: ['VACUUM ANALYZE pgbench_branches', 'VACUUM ANALYZE pgbench_tellers', 'VACUUM ANALYZE pgbench_accounts', 'VACUUM ANALYZE pgbench_history'],
    },
    { name: 'primary keys', sql: PRIMARY_KEYS },
  ];
}

export function dropStatements(dbms: DbmsName): string[] {
  // Firebird 3 has no DROP TABLE IF EXISTS; names are stored upper case in RDB$RELATIONS.
  if (dbms === 'firebird') {
    return TABLES.map(
      (table) =>
        `EXECUTE BLOCK AS BEGIN IF (EXISTS (SELECT 1 FROM rdb$relations WHERE rdb$relation_name = '${table.toUpperCase()}')) THEN EXECUTE STATEMENT 'DROP TABLE ${table}'; END`,
    );
  }
  return TABLES.map((table) => `DROP TABLE IF EXISTS ${table}`);
}
