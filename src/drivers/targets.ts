import type { TargetGrammar } from '../config/target-grammar.js';
import type { ServerTarget, SqliteTarget } from '../config/target-types.js';
import type { DbmsName } from './driver.js';
import { FIREBIRD_TARGET } from './firebird/target.js';
import { MARIADB_TARGET } from './mariadb/target.js';
import { POSTGRES_TARGET } from './postgres/target.js';
import { SQLITE_TARGET } from './sqlite/target.js';

/**
 * Each DBMS's URL grammar, environment variables, defaults and printed form, for config/target.ts.
 * Apart from the driver registry: resolving --db must not load the drivers' wire code.
 */
export const TARGETS: { [D in DbmsName]: TargetGrammar<D extends 'sqlite' ? SqliteTarget : ServerTarget> } = {
  sqlite: SQLITE_TARGET,
  postgres: POSTGRES_TARGET,
  mariadb: MARIADB_TARGET,
  firebird: FIREBIRD_TARGET,
};
