import type { DbmsName } from '../../drivers/driver.js';
import { INT, TIME } from './column-types.js';
import { tpccDialect } from './dialect.js';

/**
 * The nine tables of clause 1.3 with the spec's column types. Money and rates are NUMERIC(p,s)
 * (INTEGER in units of the scale where the DBMS has no exact decimal, see decimal.ts); each DBMS's
 * spelling of the types is in dialect.ts. Primary keys as clause 1.3 names
 * them; two secondary indexes for the transactions: customers by last name (Payment and
 * Order-Status, 2.5.2.2 and 2.6.2.2) and orders by customer (Order-Status's last order).
 */
type Column = readonly [name: string, type: string];

export const TABLE_COLUMNS: Record<string, readonly Column[]> = {
  warehouse: [
    ['w_id', INT],
    ['w_name', 'varchar(10)'],
    ['w_street_1', 'varchar(20)'],
    ['w_street_2', 'varchar(20)'],
    ['w_city', 'varchar(20)'],
    ['w_state', 'char(2)'],
    ['w_zip', 'char(9)'],
    ['w_tax', 'numeric(4,4)'],
    ['w_ytd', 'numeric(12,2)'],
  ],
  district: [
    ['d_id', INT],
    ['d_w_id', INT],
    ['d_name', 'varchar(10)'],
    ['d_street_1', 'varchar(20)'],
    ['d_street_2', 'varchar(20)'],
    ['d_city', 'varchar(20)'],
    ['d_state', 'char(2)'],
    ['d_zip', 'char(9)'],
    ['d_tax', 'numeric(4,4)'],
    ['d_ytd', 'numeric(12,2)'],
    ['d_next_o_id', INT],
  ],
  customer: [
    ['c_id', INT],
    ['c_d_id', INT],
    ['c_w_id', INT],
    ['c_first', 'varchar(16)'],
    ['c_middle', 'char(2)'],
    ['c_last', 'varchar(16)'],
    ['c_street_1', 'varchar(20)'],
    ['c_street_2', 'varchar(20)'],
    ['c_city', 'varchar(20)'],
    ['c_state', 'char(2)'],
    ['c_zip', 'char(9)'],
    ['c_phone', 'char(16)'],
    ['c_since', TIME],
    ['c_credit', 'char(2)'],
    ['c_credit_lim', 'numeric(12,2)'],
    ['c_discount', 'numeric(4,4)'],
    ['c_balance', 'numeric(12,2)'],
    ['c_ytd_payment', 'numeric(12,2)'],
    ['c_payment_cnt', INT],
    ['c_delivery_cnt', INT],
    ['c_data', 'varchar(500)'],
  ],
  history: [
    ['h_c_id', INT],
    ['h_c_d_id', INT],
    ['h_c_w_id', INT],
    ['h_d_id', INT],
    ['h_w_id', INT],
    ['h_date', TIME],
    ['h_amount', 'numeric(6,2)'],
    ['h_data', 'varchar(24)'],
  ],
  new_order: [
    ['no_o_id', INT],
    ['no_d_id', INT],
    ['no_w_id', INT],
  ],
  orders: [
    ['o_id', INT],
    ['o_d_id', INT],
    ['o_w_id', INT],
    ['o_c_id', INT],
    ['o_entry_d', TIME],
    ['o_carrier_id', INT],
    ['o_ol_cnt', INT],
    ['o_all_local', INT],
  ],
  order_line: [
    ['ol_o_id', INT],
    ['ol_d_id', INT],
    ['ol_w_id', INT],
    ['ol_number', INT],
    ['ol_i_id', INT],
    ['ol_supply_w_id', INT],
    ['ol_delivery_d', TIME],
    ['ol_quantity', INT],
    ['ol_amount', 'numeric(6,2)'],
    ['ol_dist_info', 'char(24)'],
  ],
  item: [
    ['i_id', INT],
    ['i_im_id', INT],
    ['i_name', 'varchar(24)'],
    ['i_price', 'numeric(5,2)'],
    ['i_data', 'varchar(50)'],
  ],
  stock: [
    ['s_i_id', INT],
    ['s_w_id', INT],
    ['s_quantity', INT],
    ...Array.from({ length: 10 }, (_, i): Column => [`s_dist_${String(i + 1).padStart(2, '0')}`, 'char(24)']),
    ['s_ytd', INT],
    ['s_order_cnt', INT],
    ['s_remote_cnt', INT],
    ['s_data', 'varchar(50)'],
  ],
};

export const TABLES = Object.keys(TABLE_COLUMNS);

/** The constants of this load (NURand's C values, clause 2.1.6) for the terminals to use. */
export const CONSTANTS_TABLE = 'tpcc_constants';
const CONSTANTS_DDL = `CREATE TABLE ${CONSTANTS_TABLE} (c_last_load INTEGER, c_last_run INTEGER, c_id INTEGER, c_ol_i_id INTEGER)`;

export const PRIMARY_KEYS: Record<string, string | undefined> = {
  warehouse: 'w_id',
  district: 'd_w_id, d_id',
  customer: 'c_w_id, c_d_id, c_id',
  history: undefined,
  new_order: 'no_w_id, no_d_id, no_o_id',
  orders: 'o_w_id, o_d_id, o_id',
  order_line: 'ol_w_id, ol_d_id, ol_o_id, ol_number',
  item: 'i_id',
  stock: 's_w_id, s_i_id',
};

export const SECONDARY_INDEXES = [
  'CREATE INDEX customer_last_name ON customer (c_w_id, c_d_id, c_last, c_first)',
  'CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)',
];

export function createTableStatements(dbms: DbmsName): string[] {
  const dialect = tpccDialect(dbms);
  const statements = TABLES.map((table) => {
    const key = PRIMARY_KEYS[table];
    // Key columns are NOT NULL up front: Firebird adds a primary key only on NOT NULL columns.
    const keyColumns = new Set(key?.split(', '));
    const columns = TABLE_COLUMNS[table]!.map(([name, type]) => `${name} ${dialect.columnType(type)}${keyColumns.has(name) ? ' NOT NULL' : ''}`);
    if (key && dialect.keysUpFront) columns.push(`PRIMARY KEY (${key})`);
    return `CREATE TABLE ${table} (${columns.join(', ')})${dialect.tableOptions}`;
  });
  return [...statements, CONSTANTS_DDL];
}

/** Keys (where they come after the data) and secondary indexes. */
export function keyStatements(dbms: DbmsName): string[] {
  const keys = tpccDialect(dbms).keysUpFront
    ? []
    : Object.entries(PRIMARY_KEYS)
        .filter((entry): entry is [string, string] => entry[1] !== undefined)
        .map(([table, key]) => `ALTER TABLE ${table} ADD PRIMARY KEY (${key})`);
  return [...keys, ...SECONDARY_INDEXES];
}

/** Fresh statistics once the data is in, as each DBMS gathers them. */
export function analyzeStatements(dbms: DbmsName): string[] {
  return tpccDialect(dbms).analyze(TABLES);
}

export function dropStatements(dbms: DbmsName): string[] {
  return [...TABLES, CONSTANTS_TABLE].map(tpccDialect(dbms).dropTableIfExists);
}
