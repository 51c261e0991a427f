import type { CaptureBuilder } from '../capture-builder.js';

/** One entry of MariaDB's general log, from its file or from mysql.general_log. */
export interface GeneralLogEntry {
  loggedAtMs: number;
  /** The thread id, with the server's run (a restart starts thread ids again) where the file shows several. */
  key: string;
  threadId: string;
  command: string;
  argument: string;
  from: string;
}

export const NOT_SQL = 'protocol messages that are not SQL (Ping, Field List, Change user, Fetch, ...)';
export const UNKNOWN_COMMAND = 'entries with a command capture does not know (a newer server?)';

/** Commands that carry no statement to replay: counted, so that the user sees what the load also did. */
const NOT_SQL_COMMANDS = new Set([
  'Sleep',
  'Field List',
  'Create DB',
  'Drop DB',
  'Refresh',
  'Shutdown',
  'Statistics',
  'Processlist',
  'Kill',
  'Debug',
  'Ping',
  'Time',
  'Delayed insert',
  'Change user',
  'Binlog Dump',
  'Table Dump',
  'Connect Out',
  'Register Slave',
  'Long Data',
  'Set option',
  'Fetch',
  'Daemon',
  'Unimpl get tid',
  'Reset connection',
  'Bulk_execute',
  'Slave_worker',
  'Slave_IO',
  'Slave_SQL',
  'Com_multi',
  'Error',
]);

/** Statement bookkeeping of the binary protocol: the Execute entry already carries the statement with its values. */
const BOOKKEEPING = new Set(['Prepare', 'Close stmt', 'Reset stmt']);

/** The command names MariaDB's general log writes (sql_parse.cc's command names, MariaDB 10.11). */
export const GENERAL_LOG_COMMANDS = new Set([...NOT_SQL_COMMANDS, ...BOOKKEEPING, 'Connect', 'Quit', 'Init DB', 'Query', 'Execute']);

/**
 * Turns general-log entries into the capture's statements. Query and Execute are statements (Execute
 * logs the prepared statement with its values written in, so it is kept as that text, without
 * parameters); Init DB is the protocol's way of changing database and is kept as `USE db`, so that
 * replay does the same; Connect and Quit bound the session.
 */
export class GeneralLogReader {
  constructor(private readonly builder: CaptureBuilder) {}

  read(entry: GeneralLogEntry): void {
    const { key, threadId: id, command, argument, from } = entry;
    switch (command) {
      case 'Connect': {
        // A refused login is logged as a Connect with the refusal: no session began.
        if (/^Access denied/.test(argument)) return this.builder.forget(key);
        const m = /^(.*?)@(\S*)(?: as \S+)? on (\S*)/.exec(argument);
        return this.builder.connect(key, id, { ...(m?.[1] ? { user: m[1] } : {}), ...(m?.[3] ? { database: m[3] } : {}) });
      }
      case 'Quit':
        return this.builder.end(key);
      case 'Query':
      case 'Execute':
        return this.builder.statement(key, id, { loggedAtMs: entry.loggedAtMs, sql: argument, from });
      case 'Init DB':
        this.builder.identify(key, { database: argument });
        return this.builder.statement(key, id, { loggedAtMs: entry.loggedAtMs, sql: `USE \`${argument.replace(/`/g, '``')}\``, from });
      default:
        if (BOOKKEEPING.has(command)) return;
        this.builder.skip(NOT_SQL_COMMANDS.has(command) ? NOT_SQL : UNKNOWN_COMMAND, from);
    }
  }
}
