import type { SqlValue } from '../../drivers/driver.js';
import { Random } from '../../common/random.js';
import type { Decimals } from './decimal.js';
import { NURAND_A, aString, dataWithOriginal, lastName, nString, nurand, state, zip, type NurandConstants } from './random-values.js';
import {
  CUSTOMERS_NAMED_IN_TURN,
  CUSTOMERS_PER_DISTRICT,
  DISTRICTS_PER_WAREHOUSE,
  FIRST_NEW_ORDER,
  ITEMS,
  MAX_ORDER_LINES,
  MIN_ORDER_LINES,
  ORDERS_PER_DISTRICT,
  STOCK_PER_WAREHOUSE,
} from './sizes.js';

/**
 * The initial rows of clause 4.3.3.1, table by table, each in primary-key order. Every table of a
 * warehouse draws from its own seeded stream so that tables can be generated apart and a load is
 * reproducible from its seed.
 */
export interface LoadValues {
  seed: number;
  constants: NurandConstants;
  decimals: Decimals;
  /**
   * The load's "current date/time" (O_ENTRY_D, C_SINCE, H_DATE) as 'YYYY-MM-DD HH:MM:SS.mmm' text
   * in UTC: every DBMS reads it into a timestamp, and MariaDB's bulk execute keeps its speed (with
   * Date values the connector slows down about 40 times).
   */
  now: string;
}

type Rows = Generator<SqlValue[]>;

function stream(seed: number, warehouse: number, table: number): Random {
  return new Random((seed ^ Math.imul(warehouse, 0x9e3779b1) ^ Math.imul(table + 1, 0x85ebca77)) >>> 0);
}

function address(random: Random): SqlValue[] {
  return [aString(random, 10, 20), aString(random, 10, 20), aString(random, 10, 20), state(random), zip(random)];
}

export function* itemRows(v: LoadValues): Rows {
  const random = stream(v.seed, 0, 0);
  for (let id = 1; id <= ITEMS; id++) {
    yield [id, random.int(1, 10_000), aString(random, 14, 24), v.decimals.param(BigInt(random.int(100, 10_000)), 2), dataWithOriginal(random)];
  }
}

export function* warehouseRows(v: LoadValues, w: number): Rows {
  const random = stream(v.seed, w, 1);
  yield [w, aString(random, 6, 10), ...address(random), v.decimals.param(BigInt(random.int(0, 2000)), 4), v.decimals.param(30_000_000n, 2)];
}

export function* stockRows(v: LoadValues, w: number): Rows {
  const random = stream(v.seed, w, 2);
  for (let id = 1; id <= STOCK_PER_WAREHOUSE; id++) {
    const row: SqlValue[] = [id, w, random.int(10, 100)];
    for (let d = 0; d < 10; d++) row.push(aString(random, 24, 24));
    row.push(0, 0, 0, dataWithOriginal(random));
    yield row;
  }
}

export function* districtRows(v: LoadValues, w: number): Rows {
  const random = stream(v.seed, w, 3);
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    yield [
      d,
      w,
      aString(random, 6, 10),
      ...address(random),
      v.decimals.param(BigInt(random.int(0, 2000)), 4),
      v.decimals.param(3_000_000n, 2),
      ORDERS_PER_DISTRICT + 1,
    ];
  }
}

export function* customerRows(v: LoadValues, w: number): Rows {
  const random = stream(v.seed, w, 4);
  const { decimals: dec } = v;
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    for (let c = 1; c <= CUSTOMERS_PER_DISTRICT; c++) {
      const last = c <= CUSTOMERS_NAMED_IN_TURN ? lastName(c - 1) : lastName(nurand(random, NURAND_A.lastName, 0, 999, v.constants.lastNameLoad));
      yield [
        c,
        d,
        w,
        aString(random, 8, 16),
        'OE',
        last,
        ...address(random),
        nString(random, 16),
        v.now,
        random.int(1, 10) === 1 ? 'BC' : 'GC',
        dec.param(5_000_000n, 2),
        dec.param(BigInt(random.int(0, 5000)), 4),
        dec.param(-1000n, 2),
        dec.param(1000n, 2),
        1,
        0,
        aString(random, 300, 500),
      ];
    }
  }
}

export function* historyRows(v: LoadValues, w: number): Rows {
  const random = stream(v.seed, w, 5);
  const amount = v.decimals.param(1000n, 2);
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    for (let c = 1; c <= CUSTOMERS_PER_DISTRICT; c++) yield [c, d, w, d, w, v.now, amount, aString(random, 12, 24)];
  }
}

/** O_OL_CNT of every order of a warehouse, drawn once: orders and order lines must agree, and the total is known up front. */
export function orderLineCounts(v: LoadValues, w: number): Uint8Array {
  const random = stream(v.seed, w, 6);
  const counts = new Uint8Array(DISTRICTS_PER_WAREHOUSE * ORDERS_PER_DISTRICT);
  for (let i = 0; i < counts.length; i++) counts[i] = random.int(MIN_ORDER_LINES, MAX_ORDER_LINES);
  return counts;
}

export function* orderRows(v: LoadValues, w: number, lineCounts: Uint8Array): Rows {
  const random = stream(v.seed, w, 7);
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    // O_C_ID: a random permutation of the district's customers.
    const customers = Array.from({ length: CUSTOMERS_PER_DISTRICT }, (_, i) => i + 1);
    for (let i = customers.length - 1; i > 0; i--) {
      const j = random.int(0, i);
      [customers[i], customers[j]] = [customers[j]!, customers[i]!];
    }
    for (let o = 1; o <= ORDERS_PER_DISTRICT; o++) {
      const carrier = o < FIRST_NEW_ORDER ? random.int(1, 10) : null;
      yield [o, d, w, customers[o - 1]!, v.now, carrier, lineCounts[(d - 1) * ORDERS_PER_DISTRICT + o - 1]!, 1];
    }
  }
}

export function* orderLineRows(v: LoadValues, w: number, lineCounts: Uint8Array): Rows {
  const random = stream(v.seed, w, 8);
  const zero = v.decimals.param(0n, 2);
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    for (let o = 1; o <= ORDERS_PER_DISTRICT; o++) {
      const delivered = o < FIRST_NEW_ORDER;
      const lines = lineCounts[(d - 1) * ORDERS_PER_DISTRICT + o - 1]!;
      for (let n = 1; n <= lines; n++) {
        const amount = delivered ? zero : v.decimals.param(BigInt(random.int(1, 999_999)), 2);
        yield [o, d, w, n, random.int(1, ITEMS), w, delivered ? v.now : null, 5, amount, aString(random, 24, 24)];
      }
    }
  }
}

export function* newOrderRows(w: number): Rows {
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) for (let o = FIRST_NEW_ORDER; o <= ORDERS_PER_DISTRICT; o++) yield [o, d, w];
}
