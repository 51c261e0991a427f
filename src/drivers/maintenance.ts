import type { DbmsName } from './driver.js';

export interface Maintenance {
  name: string;
  statements: string[];
  /** What the statements do to old row versions on this DBMS, for the report. */
  description: string;
  /** Where this DBMS's sizes come from and what they miss, for the report. */
  sizesNote: string;
}

/**
 * The DBMS's way to reclaim the old row versions an update test leaves (docs/experiments.md section 3:
 * "VACUUM recovers it"), for the dead-rows experiment. DBMS knowledge, so it lives with the drivers.
 */
export function maintenanceFor(dbms: DbmsName, table: string): Maintenance {
  switch (dbms) {
    case 'postgres':
      return {
        name: 'vacuum',
        statements: [`VACUUM ${table}`],
        description: 'VACUUM removes dead row versions and their index entries and makes the space reusable; the file shrinks only by empty pages at its end',
        sizesNote: 'sizes from pg_relation_size and pg_indexes_size; live and dead rows are the statistics n_live_tup and n_dead_tup',
      };
    case 'mariadb':
      return {
        name: 'optimize',
        statements: [`OPTIMIZE TABLE ${table}`],
        description:
          "InnoDB's purge removes old row versions on its own; OPTIMIZE TABLE rebuilds the table and its index (recreate + analyze), returning the space of half-empty pages",
        sizesNote:
          "sizes from information_schema.TABLES, InnoDB's statistics: they are refreshed when 10% of the rows change or by ANALYZE TABLE, so between steps they may lag; InnoDB counts no dead rows",
      };
    case 'sqlite':
      return {
        name: 'vacuum',
        statements: ['VACUUM'],
        description: 'SQLite updates rows in place and keeps no old versions; VACUUM rebuilds the database file without free pages',
        sizesNote: 'sizes from dbstat where SQLite has it; the number is the rowid, so there is no separate index',
      };
    case 'firebird':
      return {
        name: 'garbage collection',
        statements: [`SELECT COUNT(*) FROM ${table}`],
        description:
          'Firebird removes back versions when a transaction reads them (cooperative garbage collection, with the background collector of SuperServer); reading every row collects them all, as a sweep (gfix -sweep) would, which needs the services API headroom does not drive',
        sizesNote: 'Firebird 3 tells only the database size (MON$DATABASE); per-table sizes need gstat',
      };
  }
}
