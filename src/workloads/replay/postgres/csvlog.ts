import { UserError } from '../../../errors.js';
import type { CaptureBuilder } from '../capture-builder.js';
import { logLines } from '../log-lines.js';
import { parseLogTime } from './prefix.js';
import { PgRecordReader } from './records.js';

/**
 * csvlog's columns up to PostgreSQL 15 (log_time ... query_id): 23 in PostgreSQL 12, 24 with
 * backend_type (13), 26 with leader_pid and query_id (14 and 15). Only the first 23 are read.
 */
const COLUMNS = [
  'log_time',
  'user_name',
  'database_name',
  'process_id',
  'connection_from',
  'session_id',
  'session_line_num',
  'command_tag',
  'session_start_time',
  'virtual_transaction_id',
  'transaction_id',
  'error_severity',
  'sql_state_code',
  'message',
  'detail',
  'hint',
  'internal_query',
  'internal_query_pos',
  'context',
  'query',
  'query_pos',
  'location',
  'application_name',
] as const;
const COLUMN = Object.fromEntries(COLUMNS.map((name, i) => [name, i])) as Record<(typeof COLUMNS)[number], number>;

/**
 * A last record cut short (the file ends inside a quoted field, or without the record's newline) is
 * a counted skip: a server still writing its log leaves one there, and everything before it is whole. A complete record with the
 * wrong number of columns is an error, since it is not csvlog as PostgreSQL writes it, and what its
 * columns mean cannot be known.
 */
export const CUT_SHORT = 'the last record, cut short (the server was still writing it)';

/** Reads one PostgreSQL csvlog file into the builder. */
export function readCsvLog(file: string, shown: string, builder: CaptureBuilder): void {
  const reader = new PgRecordReader(builder);
  let record = '';
  let startLine = 0;
  let quoted = false;
  for (const { text, number, ended } of logLines(file)) {
    if (record === '' && text === '') continue;
    if (record === '') startLine = number;
    else record += '\n';
    record += text;
    // A newline inside a quoted field (a multi-line statement) does not end the record.
    for (const c of text) if (c === '"') quoted = !quoted;
    if (quoted) continue;
    const from = `${shown}:${startLine}`;
    if (!ended) {
      record = '';
      builder.skip(CUT_SHORT, from);
      break;
    }
    const fields = csvFields(record);
    record = '';
    if (fields.length < COLUMNS.length || fields.length > 26)
      throw new UserError(
        `${from}: a csvlog record of ${fields.length} columns (PostgreSQL 12 to 15 write 23 to 26)`,
        'give csvlog files as the server wrote them, or --format stderr for a stderr log',
      );
    const time = parseLogTime(fields[COLUMN.log_time]!);
    if (Number.isNaN(time.ms)) throw new UserError(`${from}: log_time "${fields[COLUMN.log_time]}" is not a valid time`, 'the log is damaged here');
    if (time.zoneUnknown)
      builder.note(`the log's times are in zone ${time.zoneUnknown}, read as UTC: startedAt is off by its offset, the times between statements are not`);
    const get = (name: (typeof COLUMNS)[number]): string | undefined => fields[COLUMN[name]] || undefined;
    reader.read({
      loggedAtMs: time.ms,
      ...optional('session', get('session_id')),
      ...optional('user', get('user_name')),
      ...optional('database', get('database_name')),
      severity: get('error_severity') ?? '',
      ...optional('sqlState', get('sql_state_code')),
      message: get('message') ?? '',
      ...optional('detail', get('detail')),
      ...optional('query', get('query')),
      from,
    });
  }
  if (record !== '') builder.skip(CUT_SHORT, `${shown}:${startLine}`);
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** The fields of one CSV record: commas between fields, quotes around any, a doubled quote inside one. */
export function csvFields(record: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < record.length; i++) {
    const c = record[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (record[i + 1] === '"') ((field += '"'), i++);
      else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') (fields.push(field), (field = ''));
    else field += c;
  }
  fields.push(field);
  return fields;
}
