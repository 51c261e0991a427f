import type { SqlValue } from '../../drivers/driver.js';
import { Random } from '../../common/random.js';
import { RefGenerator } from './generator.js';
import type { ChainSizes } from './sizes.js';
import { NAME_LENGTH, PERSON_NAME_LENGTH, building, countryCode, house, printable } from './values.js';

/**
 * The rows of each table, id first, in INSERT_COLUMNS order. Each table (and each client batch)
 * starts a fresh reference generator, as the spec says, so the three client batches reference the
 * same address sequence; the text values come from a fixed seed, so every load is the same data.
 */
export function* countryRows(sizes: ChainSizes): Generator<SqlValue[]> {
  const random = new Random(1);
  for (let id = 1; id <= sizes.countries; id++) yield [id, countryCode(id), printable(random, NAME_LENGTH)];
}

export function* cityRows(sizes: ChainSizes): Generator<SqlValue[]> {
  const refs = new RefGenerator();
  const random = new Random(2);
  for (let id = 1; id <= sizes.cities; id++) yield [id, refs.nextRef(sizes.countries), printable(random, NAME_LENGTH)];
}

export function* streetRows(sizes: ChainSizes): Generator<SqlValue[]> {
  const refs = new RefGenerator();
  const random = new Random(3);
  for (let id = 1; id <= sizes.streets; id++) yield [id, refs.nextRef(sizes.cities), printable(random, NAME_LENGTH)];
}

export function* addressRows(sizes: ChainSizes): Generator<SqlValue[]> {
  const refs = new RefGenerator();
  const random = new Random(4);
  for (let id = 1; id <= sizes.addresses; id++) yield [id, refs.nextRef(sizes.streets), id, building(random), house(id)];
}

/** Client batch `batch` (0, 1, 2): ids batch * N + 1 .. (batch + 1) * N. */
export function* clientRows(sizes: ChainSizes, batch: number): Generator<SqlValue[]> {
  const refs = new RefGenerator();
  const random = new Random(5 + batch);
  const first = batch * sizes.clientsPerBatch + 1;
  for (let id = first; id < first + sizes.clientsPerBatch; id++) {
    yield [id, refs.nextRef(sizes.addresses), printable(random, PERSON_NAME_LENGTH), printable(random, PERSON_NAME_LENGTH)];
  }
}
