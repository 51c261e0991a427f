import type { DbmsName } from '../../drivers/driver.js';
import { RowProgress } from '../progress.js';
import type { DataContext, LoadPhase } from '../workload.js';
import { PhaseClock } from '../phases.js';
import { addressRows, cityRows, clientRows, countryRows, streetRows } from './rows.js';
import { chainDialect } from './dialect.js';
import { CLIENT_NAME_INDEX, INSERT_COLUMNS, addForeignKey, createTable, dropStatements, syncSequence } from './schema.js';
import { CLIENT_BATCHES, type ChainSizes } from './sizes.js';

/**
 * The same rows as the faithful load (same generator, same values, same ids), through each DBMS's
 * fastest path (COPY, MariaDB's bulk execute, one SQLite transaction), with foreign keys and
 * secondary indexes built once the data is in.
 */
export async function loadBulk(ctx: DataContext, sizes: ChainSizes): Promise<LoadPhase[]> {
  const { dbms, conn } = ctx;
  const clock = new PhaseClock(ctx);
  const tables = ['country', 'city', 'street', 'address', 'client', 'operation'] as const;
  // The phases carry a "bulk" prefix so that a result never passes them off as the study's phases.
  await clock.timed('bulk: create tables', () => clock.statements([...dropStatements(dbms), ...tables.map((table) => createTable(dbms, table, false))]));
  const counted = (phase: string, total: number) => new RowProgress(ctx, phase, total);
  await clock.timed('bulk: countries', () =>
    conn.bulkInsert('country', INSERT_COLUMNS.country, counted('bulk: countries', sizes.countries).rows(countryRows(sizes))),
  );
  await clock.timed('bulk: cities', () => conn.bulkInsert('city', INSERT_COLUMNS.city, counted('bulk: cities', sizes.cities).rows(cityRows(sizes))));
  await clock.timed('bulk: streets', () => conn.bulkInsert('street', INSERT_COLUMNS.street, counted('bulk: streets', sizes.streets).rows(streetRows(sizes))));
  await clock.timed('bulk: addresses', () =>
    conn.bulkInsert('address', INSERT_COLUMNS.address, counted('bulk: addresses', sizes.addresses).rows(addressRows(sizes))),
  );
  await clock.timed('bulk: clients', async () => {
    const progress = counted('bulk: clients', CLIENT_BATCHES * sizes.clientsPerBatch);
    let rows = 0;
    for (let batch = 0; batch < CLIENT_BATCHES; batch++)
      rows += await conn.bulkInsert('client', INSERT_COLUMNS.client, progress.rows(clientRows(sizes, batch)));
    return rows;
  });
  await clock.timed('bulk: keys and indexes', () => clock.statements(keysAndIndexes(dbms)));
  return clock.phases;
}

function keysAndIndexes(dbms: DbmsName): string[] {
  const keyed = ['city', 'street', 'address', 'client', 'operation'] as const;
  const statements = [
    ...(['country', 'city', 'street', 'address', 'client'] as const).flatMap((table) => syncSequence(dbms, table)),
    CLIENT_NAME_INDEX,
    ...keyed.flatMap((table) => addForeignKey(dbms, table)),
  ];
  return chainDialect(dbms).bulkKeys(statements);
}
