import type { CheckOutcome, DataContext } from '../workload.js';
import { CLIENT_BATCHES, chainSizes } from './sizes.js';

/**
 * Invariants the load and any number of model units keep: every table but operation holds the
 * rows its scale says (units never add or remove them), every reference resolves, every client
 * points at an address the generator can draw, and summa stays in the unit's ranges (1..1000
 * inserted, 20..119 updated).
 */
export async function checkChain(ctx: DataContext): Promise<CheckOutcome[]> {
  const sizes = chainSizes(ctx.scale);
  const count = async (sql: string): Promise<number> => {
    const [[value]] = (await ctx.conn.query(sql)) as [[unknown]];
    return Number(value);
  };
  const outcomes: CheckOutcome[] = [];
  const expected: [string, number][] = [
    ['country', sizes.countries],
    ['city', sizes.cities],
    ['street', sizes.streets],
    ['address', sizes.addresses],
    ['client', CLIENT_BATCHES * sizes.clientsPerBatch],
  ];
  for (const [table, rows] of expected) {
    const actual = await count(`SELECT COUNT(*) FROM ${table}`);
    outcomes.push({ name: `${table} rows`, ok: actual === rows, detail: `${actual} rows, expected ${rows} at scale ${ctx.scale}` });
  }
  const orphans: [string, string][] = [
    ['city -> country', 'SELECT COUNT(*) FROM city x LEFT JOIN country p ON p.id = x.country_id WHERE p.id IS NULL'],
    ['street -> city', 'SELECT COUNT(*) FROM street x LEFT JOIN city p ON p.id = x.city_id WHERE p.id IS NULL'],
    ['address -> street', 'SELECT COUNT(*) FROM address x LEFT JOIN street p ON p.id = x.street_id WHERE p.id IS NULL'],
    ['client -> address', 'SELECT COUNT(*) FROM client x LEFT JOIN address p ON p.id = x.address_id WHERE p.id IS NULL'],
    ['operation -> client', 'SELECT COUNT(*) FROM operation x LEFT JOIN client p ON p.id = x.client_id WHERE p.id IS NULL'],
  ];
  for (const [name, sql] of orphans) {
    const actual = await count(sql);
    outcomes.push({ name: `${name} references resolve`, ok: actual === 0, detail: `${actual} rows reference a missing parent` });
  }
  // Units draw clients from the first batch only (ids 1..N-1).
  const outside = await count(`SELECT COUNT(*) FROM operation WHERE client_id < 1 OR client_id >= ${sizes.clientsPerBatch}`);
  outcomes.push({
    name: 'operations on first-batch clients',
    ok: outside === 0,
    detail: `${outside} operations outside client ids 1..${sizes.clientsPerBatch - 1}`,
  });
  const badSumma = await count('SELECT COUNT(*) FROM operation WHERE summa IS NULL OR summa < 1 OR summa > 1000');
  outcomes.push({ name: 'summa in range', ok: badSumma === 0, detail: `${badSumma} operations with summa outside 1..1000` });
  return outcomes;
}
