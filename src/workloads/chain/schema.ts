import type { DbmsName } from '../../drivers/driver.js';

/**
 * The six tables of the chain operation -> client -> address -> street -> city -> country, with
 * the study's singular names and auto-increment keys (chain-model.md, "Schema"). Listed in drop
 * order: children first, so no foreign key stands in the way. chain_meta remembers the scale.
 */
export const TABLES = ['operation', 'client', 'address', 'street', 'city', 'country', 'chain_meta'] as const;

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

function idColumn(dbms: DbmsName): string {
  switch (dbms) {
    case 'postgres':
      return 'id serial PRIMARY KEY';
    case 'mariadb':
      return 'id int AUTO_INCREMENT PRIMARY KEY';
    case 'sqlite':
      // INTEGER PRIMARY KEY is the rowid: auto-assigned, no second b-tree.
      return 'id INTEGER PRIMARY KEY';
    case 'firebird':
      throw new Error('chain has no Firebird schema yet (chain.runsOn)');
  }
}

/**
 * CREATE TABLE with the primary key, and the foreign key when `withForeignKey`. SQLite cannot add
 * a foreign key to an existing table, so there it is declared at creation, except on client, whose key
 * the study adds later (SQLite enforces keys only under PRAGMA foreign_keys, which headroom
 * leaves off, so they cost a load nothing).
 */
export function createTable(dbms: DbmsName, table: ChainTable, withForeignKey: boolean): string {
  const declare = withForeignKey || (dbms === 'sqlite' && table !== 'client');
  // A table constraint, not a column REFERENCES: MySQL parses and ignores the column form.
  const constraint = declare && table !== 'country' ? `, ${foreignKeyClause(table)}` : '';
  // MariaDB gives a timestamp column ON UPDATE CURRENT_TIMESTAMP unless told otherwise, which would
  // let step 4's update move op_time; datetime holds the same value without that.
  const columns = dbms === 'mariadb' ? COLUMNS[table].replace('op_time timestamp', 'op_time datetime') : COLUMNS[table];
  return `CREATE TABLE ${table} (${idColumn(dbms)}, ${columns}${constraint})${dbms === 'mariadb' ? ' ENGINE = InnoDB' : ''}`;
}

function foreignKeyClause(table: Exclude<ChainTable, 'country'>): string {
  const { column, parent } = FOREIGN_KEYS[table];
  return `CONSTRAINT ${table}_${column}_fk FOREIGN KEY (${column}) REFERENCES ${parent} (id)`;
}

/**
 * The index on a foreign-key column: PostgreSQL (and SQLite) do not create one by themselves, so
 * the study added them; InnoDB creates its own with the constraint.
 */
export function foreignKeyIndex(dbms: DbmsName, table: Exclude<ChainTable, 'country'>): string[] {
  if (dbms === 'mariadb') return [];
  const { column } = FOREIGN_KEYS[table];
  return [`CREATE INDEX ${table}_${column}_idx ON ${table} (${column})`];
}

/** Adds the foreign key (and its index where the DBMS needs one) to a table that has data. */
export function addForeignKey(dbms: DbmsName, table: Exclude<ChainTable, 'country'>): string[] {
  if (dbms === 'sqlite') return foreignKeyIndex(dbms, table);
  return [`ALTER TABLE ${table} ADD ${foreignKeyClause(table)}`, ...foreignKeyIndex(dbms, table)];
}

export const CLIENT_NAME_INDEX = 'CREATE INDEX client_name_idx ON client (name)';

export function createMetaTable(dbms: DbmsName): string {
  return `CREATE TABLE chain_meta (name varchar(30) PRIMARY KEY, value varchar(100))${dbms === 'mariadb' ? ' ENGINE = InnoDB' : ''}`;
}

export function dropStatements(tables: readonly string[] = TABLES): string[] {
  return tables.map((table) => `DROP TABLE IF EXISTS ${table}`);
}

/**
 * Explicit ids leave PostgreSQL's sequences at 1; move them past the data so later inserts that
 * let the key default (the model unit's operations) do not collide.
 */
export function syncSequence(dbms: DbmsName, table: ChainTable): string[] {
  if (dbms !== 'postgres') return [];
  return [`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT COALESCE(MAX(id), 0) + 1 FROM ${table}), false)`];
}
