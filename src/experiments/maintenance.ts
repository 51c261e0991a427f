import type { DbmsName } from '../drivers/driver.js';

export interface Maintenance {
  name: string;
  statements: string[];
  /** What the statements do to old row versions on this DBMS, for the report. */
  description: string;
}

/** The DBMS's way to reclaim the old row versions an update test leaves (experiments.md section 3: "VACUUM recovers it"). */
export function maintenanceFor(dbms: DbmsName, table: string): Maintenance {
  switch (dbms) {
    case 'postgres':
      return {
        name: 'vacuum',
        statements: [`VACUUM ${table}`],
        description: 'VACUUM removes dead row versions and their index entries and makes the space reusable; the file shrinks only by empty pages at its end',
      };
    case 'mariadb':
      return {
        name: 'optimize',
        statements: [`OPTIMIZE TABLE ${table}`],
        description: "InnoDB's purge removes old row versions on its own; OPTIMIZE TABLE rebuilds the table and its index (recreate + analyze), returning the space of half-empty pages",
      };
    case 'sqlite':
      return {
        name: 'vacuum',
        statements: ['VACUUM'],
        description: 'SQLite updates rows in place and keeps no old versions; VACUUM rebuilds the database file without free pages',
      };
    case 'firebird':
      return {
        name: 'garbage collection',
        statements: [`SELECT COUNT(*) FROM ${table}`],
        description:
          'Firebird removes back versions when a transaction reads them (cooperative garbage collection, with the background collector of SuperServer); reading every row collects them all, as a sweep (gfix -sweep) would, which needs the services API headroom does not drive',
      };
  }
}
