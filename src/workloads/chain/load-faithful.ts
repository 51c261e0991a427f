import type { SqlValue } from '../../drivers/driver.js';
import { RowProgress } from '../progress.js';
import type { DataContext, LoadPhase } from '../workload.js';
import { PhaseClock } from '../phases.js';
import { addressRows, cityRows, clientRows, countryRows, streetRows } from './rows.js';
import { CLIENT_NAME_INDEX, INSERT_COLUMNS, addForeignKey, createTable, dropStatements, foreignKeyIndex, type ChainTable } from './schema.js';
import type { ChainSizes } from './sizes.js';

/** The study's phase names, in its order (chain-model.md, "Loading phases"). */
export const FAITHFUL_PHASES = [
  'Countries',
  'Cities',
  'Streets',
  'Addresses',
  'Preparation',
  'Insert1',
  'Indexing',
  'Insert2',
  'Altering table',
  'Insert3',
] as const;

/**
 * The study's load, whose phase times are part of the measurement: one thread, row by row through
 * one prepared insert, one transaction per table or client batch, ids left to the auto-increment.
 * Dictionaries load with their foreign keys declared; clients load with the primary key only,
 * then with an index on name, then with the foreign key to address, to show what each costs.
 */
export async function loadFaithful(ctx: DataContext, sizes: ChainSizes): Promise<LoadPhase[]> {
  const { dbms } = ctx;
  const clock = new PhaseClock(ctx);
  const insertRows = (phase: string, table: Exclude<ChainTable, 'operation'>, total: number, rows: Iterable<SqlValue[]>) => () =>
    insertRowByRow(ctx, table, new RowProgress(ctx, phase, total).rows(rows));

  // Creating the dictionaries is not one of the study's timed phases.
  await clock.statements([
    ...dropStatements(dbms),
    createTable(dbms, 'country', true),
    ...(['city', 'street', 'address'] as const).flatMap((table) => [createTable(dbms, table, true), ...foreignKeyIndex(dbms, table)]),
  ]);
  await clock.timed('Countries', insertRows('Countries', 'country', sizes.countries, countryRows(sizes)));
  await clock.timed('Cities', insertRows('Cities', 'city', sizes.cities, cityRows(sizes)));
  await clock.timed('Streets', insertRows('Streets', 'street', sizes.streets, streetRows(sizes)));
  await clock.timed('Addresses', insertRows('Addresses', 'address', sizes.addresses, addressRows(sizes)));
  await clock.timed('Preparation', () =>
    clock.statements([
      ...dropStatements(dbms, ['operation', 'client']),
      createTable(dbms, 'client', false),
      createTable(dbms, 'operation', true),
      ...foreignKeyIndex(dbms, 'operation'),
    ]),
  );
  await clock.timed('Insert1', insertRows('Insert1', 'client', sizes.clientsPerBatch, clientRows(sizes, 0)));
  await clock.timed('Indexing', () => clock.statements([CLIENT_NAME_INDEX]));
  await clock.timed('Insert2', insertRows('Insert2', 'client', sizes.clientsPerBatch, clientRows(sizes, 1)));
  await clock.timed('Altering table', () => clock.statements(addForeignKey(dbms, 'client')));
  await clock.timed('Insert3', insertRows('Insert3', 'client', sizes.clientsPerBatch, clientRows(sizes, 2)));
  return clock.phases;
}

/** One transaction, one prepared insert without the id (the auto-increment assigns 1, 2, ...). */
async function insertRowByRow(ctx: DataContext, table: Exclude<ChainTable, 'operation'>, rows: Iterable<SqlValue[]>): Promise<number> {
  const columns = INSERT_COLUMNS[table].slice(1);
  await ctx.conn.begin();
  try {
    const insert = await ctx.conn.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    let count = 0;
    for (const row of rows) {
      await insert.run(row.slice(1));
      count++;
    }
    await ctx.conn.commit();
    return count;
  } catch (error) {
    await ctx.conn.rollback().catch(() => {});
    throw error;
  }
}
