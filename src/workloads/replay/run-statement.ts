import type { Connection, SqlValue, Statement } from '../../drivers/driver.js';
import type { CapturedStatement } from './capture-file.js';

/** The counts a replayed statement adds to its type (TypeCounts.counters), by these names. */
export const REPLAY_COUNTERS = {
  /** Failed when recorded and failed again: expected, not counted failed. */
  recordedErrorAgain: 'recorded error again',
  /** Failed when recorded and succeeded on replay. */
  recordedErrorGone: 'recorded error did not recur',
  rowsChecked: 'rows checked',
  rowsDiffer: 'rows differ',
} as const;

const WRITES = new Set(['insert', 'update', 'delete']);

/**
 * Runs one recorded statement on the terminal's connection as it was sent: with its parameters
 * through the driver's prepared path (text values, types left to the server), without through the
 * plain query; a write whose row count the capture has through the prepared path, which answers
 * with the count. Statements prepared here stay prepared for the connection's next executions.
 */
export async function runRecorded(
  conn: Connection,
  st: CapturedStatement,
  prepared: Map<string, Statement>,
  count: ((name: string, amount: number) => void) | undefined,
): Promise<void> {
  let rows: number;
  try {
    const write = WRITES.has(st.kind);
    if (st.params !== undefined || (write && st.rows !== undefined)) {
      let statement = prepared.get(st.sql);
      if (!statement) {
        statement = await conn.prepare(st.sql);
        prepared.set(st.sql, statement);
      }
      const params: readonly SqlValue[] = st.params ?? [];
      rows = write ? await statement.run(params) : (await statement.all(params)).length;
    } else {
      rows = (await conn.query(st.sql)).length;
    }
  } catch (error) {
    if (st.error === undefined) throw error;
    count?.(REPLAY_COUNTERS.recordedErrorAgain, 1);
    return;
  }
  if (st.error !== undefined) count?.(REPLAY_COUNTERS.recordedErrorGone, 1);
  if (st.rows !== undefined) {
    count?.(REPLAY_COUNTERS.rowsChecked, 1);
    if (rows !== st.rows) count?.(REPLAY_COUNTERS.rowsDiffer, 1);
  }
}
