import type { DbmsName } from '../../drivers/driver.js';
import { chainDialect } from './dialect.js';

/**
 * The six tables of the chain operation -> client -> address -> street -> city -> country, with
 * the study's singular names and auto-increment keys (chain-model.md, "Schema"). Listed in drop
 * order: children first, so no foreign key stands in the way. chain_meta remembers the scale.
 */
export const TABLES = ['operation', 'client', 'address', 'street', 'city', 'country', 'chain_meta'] as const;
/** The six tables of the chain, without its bookkeeping table chain_meta. */
export const DATA_TABLES = TABLES.filter((table) => table !== 'chain_meta');

export type ChainTable = 'country' | 'city' | 'street' | 'address' | 'client' | 'operation';

/** Each foreign key: child table, its column, parent table. client.address_id comes later (Altering table). */
export const FOREIGN_KEYS: Record<Exclude<ChainTable, 'country'>, { column: string; parent: ChainTable }> = {
  city: { column: 'country_id', parent: 'country' },
  street: { column: 'city_id', parent: 'city' },
  address: { column: 'street_id', parent: 'street' },
  client: { column: 'address_id', parent: 'address' },
  operation: { column: 'client_id', parent: 'client' },
};

const COLUMNS: Record<ChainTable, string> = {
  country: 'country_code varchar(4), name varchar(150)',
  city: 'country_id int, name varchar(150)',
  street: 'city_id int, name varchar(150)',
  address: 'street_id int, flat int, building varchar(5), house varchar(5)',
  client: 'address_id int, name varchar(30), last_name varchar(30)',
  operation: 'summa int, client_id int, op_time timestamp',
};

/** Columns a loader writes, in the order its rows hold them (id first). */
export const INSERT_COLUMNS: Record<Exclude<ChainTable, 'operation'>, readonly string[]> = {
  country: ['id', 'country_code', 'name'],
  city: ['id', 'country_id', 'name'],
  street: ['id', 'city_id', 'name'],
  address: ['id', 'street_id', 'flat', 'building', 'house'],
  client: ['id', 'address_id', 'name', 'last_name'],
};

/**
 * CREATE TABLE with the primary key, and the foreign key when `withForeignKey`. Where the DBMS
 * cannot add a foreign key to an existing table, it is declared at creation, except on client,
 * whose key the study adds later.
 */
export function createTable(dbms: DbmsName, table: ChainTable, withForeignKey: boolean): string {
  const dialect = chainDialect(dbms);
  const declare = withForeignKey || (dialect.foreignKeysAtCreation && table !== 'client');
  // A table constraint, not a column REFERENCES: MySQL parses and ignores the column form.
  const constraint = declare && table !== 'country' ? `, ${foreignKeyClause(table)}` : '';
  const columns = COLUMNS[table].replace('op_time timestamp', `op_time ${dialect.opTimeType}`);
  return `CREATE TABLE ${table} (${dialect.idColumn}, ${columns}${constraint})${dialect.tableOptions}`;
}

function foreignKeyClause(table: Exclude<ChainTable, 'country'>): string {
  const { column, parent } = FOREIGN_KEYS[table];
  return `CONSTRAINT ${table}_${column}_fk FOREIGN KEY (${column}) REFERENCES ${parent} (id)`;
}

/**
 * The index on a foreign-key column where the DBMS does not create one by itself (PostgreSQL: the
 * study added them); InnoDB and Firebird create their own with the constraint.
 */
export function foreignKeyIndex(dbms: DbmsName, table: Exclude<ChainTable, 'country'>): string[] {
  if (chainDialect(dbms).indexesForeignKeys) return [];
  const { column } = FOREIGN_KEYS[table];
  return [`CREATE INDEX ${table}_${column}_idx ON ${table} (${column})`];
}

/** Adds the foreign key (and its index where the DBMS needs one) to a table that has data. */
export function addForeignKey(dbms: DbmsName, table: Exclude<ChainTable, 'country'>): string[] {
  if (chainDialect(dbms).foreignKeysAtCreation) return foreignKeyIndex(dbms, table);
  return [`ALTER TABLE ${table} ADD ${foreignKeyClause(table)}`, ...foreignKeyIndex(dbms, table)];
}

export const CLIENT_NAME_INDEX = 'CREATE INDEX client_name_idx ON client (name)';

export function createMetaTable(dbms: DbmsName): string {
  const dialect = chainDialect(dbms);
  return `CREATE TABLE chain_meta (name varchar(30) PRIMARY KEY, ${dialect.metaValueColumn} varchar(100))${dialect.tableOptions}`;
}

export function dropStatements(dbms: DbmsName, tables: readonly string[] = TABLES): string[] {
  return tables.map(chainDialect(dbms).dropTableIfExists);
}

/**
 * Explicit ids leave some DBMSs' id generators (PostgreSQL's sequences, Firebird's identities) at 1;
 * they move past the data so that later inserts that let the key default (the model unit's
 * operations) do not collide.
 */
export function syncSequence(dbms: DbmsName, table: ChainTable): string[] {
  return chainDialect(dbms).syncIdGenerator(table);
}
