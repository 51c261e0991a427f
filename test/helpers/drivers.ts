import type { Target } from '../../src/config/target.js';
import type { Driver } from '../../src/drivers/driver.js';
import { FirebirdDriver } from '../../src/drivers/firebird/driver.js';
import { MariadbDriver } from '../../src/drivers/mariadb/driver.js';
import { PostgresDriver } from '../../src/drivers/postgres/driver.js';
import { SqliteDriver } from '../../src/drivers/sqlite/driver.js';

/**
 * The target's driver, at once: tests load every DBMS's client anyway, where headroom itself loads
 * only the one a command uses (loadDriver in src/drivers/registry.ts).
 */
export function createDriver(target: Target): Driver {
  switch (target.dbms) {
    case 'sqlite':
      return new SqliteDriver(target);
    case 'postgres':
      return new PostgresDriver(target);
    case 'mariadb':
      return new MariadbDriver(target);
    case 'firebird':
      return new FirebirdDriver(target);
  }
}
