import type { DbmsObservation } from '../drivers/observation.js';
import type { TableSizes } from '../result/experiment-rows.js';

/** One table's entry of the observe layer's size snapshot (src/observe), nulls where it has none. */
export async function tableSizes(observation: DbmsObservation, table: string): Promise<TableSizes> {
  const snapshot = await observation.sizes();
  const entry = snapshot.tables.find((t) => t.name.toLowerCase() === table.toLowerCase());
  return {
    databaseBytes: snapshot.databaseBytes,
    totalBytes: entry?.bytes ?? null,
    tableBytes: entry?.tableBytes ?? null,
    indexBytes: entry?.indexBytes ?? null,
    liveRows: entry?.rows ?? null,
    deadRows: entry?.deadRows ?? null,
  };
}
