import type { Row, Statement } from '../../drivers/driver.js';

/**
 * Clause 2.5.2.2 / 2.6.2.2: of the customers with this last name in the district, sorted by
 * C_FIRST, take the one at position n/2 rounded up. `byName` selects the rows in that order,
 * C_ID first. Undefined when no customer has the name (the load gives every name at least one).
 */
export async function customerByLastName(byName: Statement, warehouse: number, district: number, last: string): Promise<Row | undefined> {
  const rows = await byName.all([warehouse, district, last]);
  return rows[Math.ceil(rows.length / 2) - 1];
}
