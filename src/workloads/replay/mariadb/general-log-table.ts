import { UserError } from '../../../errors.js';
import type { Connection } from '../../../drivers/driver.js';
import type { CaptureBuilder } from '../capture-builder.js';
import { GeneralLogReader } from './entries.js';

/**
 * Reads mysql.general_log (log_output = TABLE) into the builder, in the order the server wrote it (the
 * table's CSV engine keeps insertion order), with its microsecond times. The reading connection's
 * own statements are logged there too while it reads, and are left out.
 */
export async function readGeneralLogTable(conn: Connection, builder: CaptureBuilder): Promise<number> {
  let rows: unknown[][];
  try {
    rows = await conn.query(
      'SELECT UNIX_TIMESTAMP(event_time), thread_id, command_type, CONVERT(argument USING utf8mb4) FROM mysql.general_log WHERE thread_id <> CONNECTION_ID()',
    );
  } catch (error) {
    throw new UserError(
      `cannot read mysql.general_log: ${(error as Error).message}`,
      'connect as a user that may read the mysql schema (SELECT on mysql.general_log)',
      {
        cause: error,
      },
    );
  }
  if (rows.length === 0)
    throw new UserError('mysql.general_log is empty', "turn the log on into the table first: SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = ON");
  const reader = new GeneralLogReader(builder);
  rows.forEach(([time, threadId, command, argument], i) =>
    reader.read({
      loggedAtMs: Number(time) * 1000,
      key: String(threadId),
      threadId: String(threadId),
      command: String(command),
      argument: argument === null ? '' : String(argument),
      from: `mysql.general_log:${i + 1}`,
    }),
  );
  return rows.length;
}
