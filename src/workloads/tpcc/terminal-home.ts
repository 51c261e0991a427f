import type { Connection } from '../../drivers/driver.js';
import type { Random } from '../../common/random.js';
import type { TerminalContext } from '../workload.js';
import { Decimals } from './decimal.js';
import { NURAND_A, lastName, nurand, type NurandConstants } from './random-values.js';
import { CONSTANTS_TABLE } from './schema.js';
import { CUSTOMERS_PER_DISTRICT, DISTRICTS_PER_WAREHOUSE } from './sizes.js';

/**
 * What every transaction of a terminal shares: its home warehouse (constant for the run, clause
 * 2.4.1.1 and peers), its own district for Stock-Level (each terminal a distinct (W_ID, D_ID)
 * pair while there are at most 10 per warehouse, 2.8.1.1), the load's NURand constants, and the
 * decimal codec of the DBMS.
 */
export interface TerminalHome {
  random: Random;
  warehouses: number;
  warehouse: number;
  district: number;
  constants: NurandConstants;
  decimals: Decimals;
}

/** Money parameters enter arithmetic as exact decimals (MariaDB would otherwise compute a string in DOUBLE). */
export const MONEY = 'CAST(? AS DECIMAL(12,2))';

/** Terminal i -> warehouse i mod W + 1, district floor(i / W) mod 10 + 1: terminals fill every warehouse before a second district. */
export function homeOf(terminal: number, warehouses: number): { warehouse: number; district: number } {
  return { warehouse: (terminal % warehouses) + 1, district: (Math.floor(terminal / warehouses) % DISTRICTS_PER_WAREHOUSE) + 1 };
}

export async function terminalHome(conn: Connection, terminal: TerminalContext): Promise<TerminalHome> {
  const [row] = await conn.query(`SELECT c_last_load, c_last_run, c_id, c_ol_i_id FROM ${CONSTANTS_TABLE}`);
  if (!row) throw new Error(`${CONSTANTS_TABLE} is empty: reload with headroom init tpcc`);
  const [lastNameLoad, lastNameRun, customerId, itemId] = row.map(Number) as [number, number, number, number];
  return {
    random: terminal.random,
    warehouses: terminal.scale,
    ...homeOf(terminal.terminal, terminal.scale),
    constants: { lastNameLoad, lastNameRun, customerId, itemId },
    decimals: new Decimals(terminal.dbms),
  };
}

/** A warehouse other than home, uniformly (2.4.1.5, 2.5.1.2); home itself when there is only one. */
export function remoteWarehouse(home: TerminalHome): number {
  if (home.warehouses === 1) return home.warehouse;
  const other = home.random.int(1, home.warehouses - 1);
  return other >= home.warehouse ? other + 1 : other;
}

/** C_ID = NURand(1023, 1, 3000) (2.4.1.2, 2.5.1.2, 2.6.1.2). */
export function customerId(home: TerminalHome): number {
  return nurand(home.random, NURAND_A.customerId, 1, CUSTOMERS_PER_DISTRICT, home.constants.customerId);
}

/** C_LAST from NURand(255, 0, 999) with the run-time C (2.5.1.2, 2.6.1.2). */
export function customerLastName(home: TerminalHome): string {
  return lastName(nurand(home.random, NURAND_A.lastName, 0, 999, home.constants.lastNameRun));
}
