import type { DbmsName } from '../../drivers/driver.js';
import { BIGINT_SCALE, ROWS_PER_SCALE, TABLES } from './schema.js';

/** pgbench -i's table options that only PostgreSQL has (-I t with them is PgbenchDialect.tables). */
export interface PgbenchTableOptions {
  partitions: number;
  partitionMethod: 'range' | 'hash';
  fillfactor: number;
  unlogged: boolean;
  /** --tablespace: the tables' tablespace (PostgreSQL), as pgbench -i puts them there. */
  tablespace?: string | undefined;
  /** --index-tablespace: the primary keys' indexes' tablespace (PostgreSQL). */
  indexTablespace?: string | undefined;
}

/**
 * Everything the tpcb workload says differently per DBMS, in one place: the rest of the workload
 * asks tpcbDialect(dbms) and names no DBMS.
 */
export interface TpcbDialect {
  /** headroom's own load: pgbench's four tables, aid as pgbench types it at this scale. */
  createTables(scale: number): string[];
  /** Statements run after the data is in: keys and statistics, as pgbench -i, where they are not declared up front. */
  afterLoad: { name: string; sql: string[] }[];
  dropTables: string[];
  /** Ends a SELECT of scalar subqueries: the DBMS's one-row table where every SELECT needs a FROM. */
  fromNoTable: string;
  /** `headroom init tpcb --pgbench` and `headroom pgbench`: pgbench's own steps. */
  pgbench: PgbenchDialect;
}

export interface PgbenchDialect {
  /**
   * -I t with pgbench -i's PostgreSQL options (partitions, unlogged tables, fillfactor) and -I G
   * (generate_series); absent: those are refused and -I t creates createTables.
   */
  tables?(scale: number, o: PgbenchTableOptions): string[];
  /** -I d. */
  drop: string[];
  /** -I g's first statements, emptying the tables. */
  emptyTables: string[];
  /** -I v's statements, or why there is nothing to do. */
  vacuum: string[] | string;
  /** The primary keys are declared with the tables: -I p has nothing to add. */
  keysWithTables: boolean;
  /** Why -I f is refused, and what to do instead; absent where foreign keys can be added to existing tables. */
  foreignKeysRefused?: [message: string, hint: string];
  /** What pgbench runs before a run unless -n, and with -v also these for the accounts. */
  beforeRun: string[];
  beforeRunAccounts: string[];
}

const VACUUM_ANALYZE_ALL = [
  'VACUUM ANALYZE pgbench_branches',
  'VACUUM ANALYZE pgbench_tellers',
  'VACUUM ANALYZE pgbench_accounts',
  'VACUUM ANALYZE pgbench_history',
];

const PRIMARY_KEYS = [
  'ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)',
  'ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid)',
  'ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)',
];

const DELETE_ALL = ['DELETE FROM pgbench_history', 'DELETE FROM pgbench_accounts', 'DELETE FROM pgbench_tellers', 'DELETE FROM pgbench_branches'];

const plainDrops = TABLES.map((table) => `DROP TABLE IF EXISTS ${table}`);

// Firebird 3 has no DROP TABLE IF EXISTS; names are stored upper case in RDB$RELATIONS.
const firebirdDrops = TABLES.map(
  (table) =>
    `EXECUTE BLOCK AS BEGIN IF (EXISTS (SELECT 1 FROM rdb$relations WHERE rdb$relation_name = '${table.toUpperCase()}')) THEN EXECUTE STATEMENT 'DROP TABLE ${table}'; END`,
);

/** Elsewhere than PostgreSQL there is nothing to vacuum before a run: the history is emptied alone. */
const EMPTY_HISTORY = ['DELETE FROM pgbench_history'];

const postgresAid = (scale: number): string => (scale >= BIGINT_SCALE ? 'bigint' : 'int');

/** pgbench's four tables on PostgreSQL: unlogged, fillfactor and partitioning as asked. */
function postgresPgbenchTables(scale: number, o: PgbenchTableOptions): string[] {
  const aid = postgresAid(scale);
  const create = `CREATE${o.unlogged ? ' UNLOGGED' : ''} TABLE`;
  // pgbench puts each of the four tables in --tablespace; the partitions follow their parent's.
  const place = o.tablespace === undefined ? '' : ` TABLESPACE ${quoteIdentifier(o.tablespace)}`;
  const fill = ` WITH (fillfactor = ${o.fillfactor})`;
  const accountsColumns = `(aid ${aid} NOT NULL, bid int, abalance int, filler char(84))`;
  const statements = [
    `${create} pgbench_history (tid int, bid int, aid ${aid}, delta int, mtime timestamp, filler char(22))${place}`,
    `${create} pgbench_tellers (tid int NOT NULL, bid int, tbalance int, filler char(84))${fill}${place}`,
    o.partitions > 0
      ? `${create} pgbench_accounts ${accountsColumns} PARTITION BY ${o.partitionMethod.toUpperCase()} (aid)${place}`
      : `${create} pgbench_accounts ${accountsColumns}${fill}${place}`,
    `${create} pgbench_branches (bid int NOT NULL, bbalance int, filler char(88))${fill}${place}`,
  ];
  const accounts = ROWS_PER_SCALE.accounts * scale;
  const size = Math.floor((accounts + o.partitions - 1) / o.partitions);
  for (let p = 1; p <= o.partitions; p++) {
    // Range partitions as pgbench cuts them: equal slices, open-ended at both ends.
    const bounds =
      o.partitionMethod === 'range'
        ? `FOR VALUES FROM (${p === 1 ? 'MINVALUE' : (p - 1) * size + 1}) TO (${p === o.partitions ? 'MAXVALUE' : p * size + 1})`
        : `FOR VALUES WITH (MODULUS ${o.partitions}, REMAINDER ${p - 1})`;
    statements.push(`${create} pgbench_accounts_${p} PARTITION OF pgbench_accounts ${bounds}${fill}`);
  }
  return statements;
}

/** An identifier double-quoted, as libpq's PQescapeIdentifier quotes the tablespace pgbench names. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const DIALECTS: Record<DbmsName, TpcbDialect> = {
  postgres: {
    // As pgbench -i: no keys while loading (they are added after COPY), fillfactor 100.
    createTables: (scale) => [
      `CREATE TABLE pgbench_history (tid int, bid int, aid ${postgresAid(scale)}, delta int, mtime timestamp, filler char(22))`,
      'CREATE TABLE pgbench_tellers (tid int NOT NULL, bid int, tbalance int, filler char(84)) WITH (fillfactor = 100)',
      `CREATE TABLE pgbench_accounts (aid ${postgresAid(scale)} NOT NULL, bid int, abalance int, filler char(84)) WITH (fillfactor = 100)`,
      'CREATE TABLE pgbench_branches (bid int NOT NULL, bbalance int, filler char(88)) WITH (fillfactor = 100)',
    ],
    afterLoad: [
      { name: 'vacuum', sql: VACUUM_ANALYZE_ALL },
      { name: 'primary keys', sql: PRIMARY_KEYS },
    ],
    dropTables: plainDrops,
    fromNoTable: '',
    pgbench: {
      tables: postgresPgbenchTables,
      drop: ['DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers'],
      emptyTables: ['TRUNCATE TABLE pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers'],
      vacuum: VACUUM_ANALYZE_ALL,
      keysWithTables: false,
      beforeRun: ['vacuum pgbench_branches', 'vacuum pgbench_tellers', 'truncate pgbench_history'],
      beforeRunAccounts: ['vacuum analyze pgbench_accounts'],
    },
  },
  mariadb: {
    // InnoDB clusters rows by primary key: declaring it up front and loading in key order is
    // faster than rebuilding the table for ALTER TABLE ... ADD PRIMARY KEY afterwards.
    createTables: (scale) => [
      `CREATE TABLE pgbench_history (tid int, bid int, aid ${postgresAid(scale)}, delta int, mtime datetime, filler char(22)) ENGINE = InnoDB`,
      'CREATE TABLE pgbench_tellers (tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84)) ENGINE = InnoDB',
      `CREATE TABLE pgbench_accounts (aid ${postgresAid(scale)} NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84)) ENGINE = InnoDB`,
      'CREATE TABLE pgbench_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88)) ENGINE = InnoDB',
    ],
    afterLoad: [{ name: 'analyze', sql: ['ANALYZE TABLE pgbench_branches, pgbench_tellers, pgbench_accounts'] }],
    dropTables: plainDrops,
    fromNoTable: '',
    pgbench: {
      drop: plainDrops,
      emptyTables: DELETE_ALL,
      vacuum: ['ANALYZE TABLE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history'],
      // InnoDB stores rows by their key: it is declared when the table is created.
      keysWithTables: true,
      beforeRun: EMPTY_HISTORY,
      beforeRunAccounts: [],
    },
  },
  sqlite: {
    // INTEGER PRIMARY KEY makes the key the rowid: no second b-tree to maintain. SQLite's INTEGER
    // is 64 bits at every scale.
    createTables: () => [
      'CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime TEXT, filler CHAR(22))',
      'CREATE TABLE pgbench_tellers (tid INTEGER PRIMARY KEY, bid INTEGER, tbalance INTEGER, filler CHAR(84))',
      'CREATE TABLE pgbench_accounts (aid INTEGER PRIMARY KEY, bid INTEGER, abalance INTEGER, filler CHAR(84))',
      'CREATE TABLE pgbench_branches (bid INTEGER PRIMARY KEY, bbalance INTEGER, filler CHAR(88))',
    ],
    afterLoad: [{ name: 'analyze', sql: ['ANALYZE'] }],
    dropTables: plainDrops,
    fromNoTable: '',
    pgbench: {
      drop: plainDrops,
      emptyTables: DELETE_ALL,
      vacuum: ['ANALYZE'],
      // SQLite stores rows by their key: it is declared when the table is created.
      keysWithTables: true,
      foreignKeysRefused: ['SQLite cannot add foreign keys to existing tables (-I f)', 'leave f out of -I and --foreign-keys for SQLite'],
      beforeRun: EMPTY_HISTORY,
      beforeRunAccounts: [],
    },
  },
  firebird: {
    // As pgbench -i: keys come after the load (Firebird then builds each index by one sort).
    // CURRENT_TIMESTAMP in the tpcb-like insert is standard SQL and works as it is.
    createTables: (scale) => {
      const aid = scale >= BIGINT_SCALE ? 'BIGINT' : 'INTEGER';
      return [
        `CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid ${aid}, delta INTEGER, mtime TIMESTAMP, filler CHAR(22))`,
        'CREATE TABLE pgbench_tellers (tid INTEGER NOT NULL, bid INTEGER, tbalance INTEGER, filler CHAR(84))',
        `CREATE TABLE pgbench_accounts (aid ${aid} NOT NULL, bid INTEGER, abalance INTEGER, filler CHAR(84))`,
        'CREATE TABLE pgbench_branches (bid INTEGER NOT NULL, bbalance INTEGER, filler CHAR(88))',
      ];
    },
    // A new index has fresh selectivity statistics in Firebird: nothing to analyze.
    afterLoad: [{ name: 'primary keys', sql: PRIMARY_KEYS }],
    dropTables: firebirdDrops,
    // Firebird wants a FROM clause in every SELECT: its one-row table is rdb$database.
    fromNoTable: ' FROM rdb$database',
    pgbench: {
      drop: firebirdDrops,
      emptyTables: DELETE_ALL,
      vacuum: 'Firebird: nothing to vacuum; an index gets fresh statistics when it is built',
      keysWithTables: false,
      beforeRun: EMPTY_HISTORY,
      beforeRunAccounts: [],
    },
  },
};

export function tpcbDialect(dbms: DbmsName): TpcbDialect {
  return DIALECTS[dbms];
}
