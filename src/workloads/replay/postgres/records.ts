import { UserError } from '../../../errors.js';
import type { CaptureBuilder } from '../capture-builder.js';

/** One entry of a PostgreSQL log: a stderr line with the DETAIL / STATEMENT lines that follow it, or one csvlog record. */
export interface PgRecord {
  loggedAtMs: number;
  /** The session key (PostgreSQL's %c, or the process id told apart by connection lines); absent for lines of no session. */
  session?: string;
  user?: string;
  database?: string;
  severity: string;
  sqlState?: string;
  message: string;
  detail?: string;
  /** The failed statement of an ERROR (stderr's STATEMENT line, csvlog's query column). */
  query?: string;
  from: string;
}

export const COPY_FROM_STDIN = 'COPY ... FROM STDIN (its rows are not in the log)';
export const PARAMETERS_NOT_LOGGED = 'executes whose parameters were not logged (log_parameter_max_length = 0, or a server before 9.0)';
export const FAST_PATH = 'fast-path function calls and other protocol messages that are not SQL (large objects among them)';

const DURATION = /^duration: (\d+(?:\.\d+)?) ms(?:  (.*))?$/s;
const EXECUTE = /^execute (?!fetch from )(\S+?): (.*)$/s;

/**
 * Turns PostgreSQL's log entries into the capture's statements. With log_statement = all a statement
 * is logged as it starts (`statement:` for the simple protocol, `execute <name>:` with its
 * `parameters:` detail for the extended one) and a `duration:` line follows when
 * log_min_duration_statement = 0; with only log_min_duration_statement the one `duration: ...
 * statement:` line comes at the end. Parse and bind steps are logged under log_min_duration_statement
 * too, and are not statements: only executions are counted, each once.
 */
export class PgRecordReader {
  constructor(private readonly builder: CaptureBuilder) {}

  read(record: PgRecord): void {
    const key = record.session;
    if (key === undefined) return;
    const id = key;
    const who = { ...(record.user ? { user: record.user } : {}), ...(record.database ? { database: record.database } : {}) };
    if (record.severity === 'ERROR') {
      const error = record.sqlState && record.sqlState !== '00000' ? `${record.sqlState} ${record.message}` : record.message;
      this.builder.error(key, id, error, record.query, record.loggedAtMs, record.from);
      return;
    }
    if (record.severity !== 'LOG') return;
    const message = record.message;
    if (message.startsWith('connection received:')) return this.builder.connect(key, id, who);
    if (message.startsWith('connection authorized:')) {
      this.builder.identify(key, { ...who, ...authorized(message) });
      return;
    }
    if (message.startsWith('disconnection:')) return this.builder.end(key);
    if (message.startsWith('fastpath function call:')) return this.builder.skip(FAST_PATH, record.from);
    const duration = DURATION.exec(message);
    if (duration && duration[2] === undefined) return this.builder.duration(key, Number(duration[1]));
    const rest = duration ? duration[2]! : message;
    const timing = duration ? { durationMs: Number(duration[1]), endTimed: true } : {};
    if (rest.startsWith('statement: ')) return this.statement(key, record, rest.slice('statement: '.length), false, undefined, timing, who);
    const execute = EXECUTE.exec(rest);
    if (execute) return this.statement(key, record, execute[2]!, true, parameters(record.detail, record.from), timing, who);
  }

  private statement(
    key: string,
    record: PgRecord,
    sql: string,
    extended: boolean,
    params: (string | null)[] | undefined,
    timing: { durationMs?: number; endTimed?: boolean },
    who: { user?: string; database?: string },
  ): void {
    if (/^\s*copy\b[\s\S]*\bfrom\s+stdin\b/i.test(sql)) return this.builder.skip(COPY_FROM_STDIN, record.from);
    // An execute whose text has placeholders but whose values the log does not give cannot be run again.
    if (extended && params === undefined && /\$\d+/.test(sql)) return this.builder.skip(PARAMETERS_NOT_LOGGED, record.from);
    this.builder.statement(key, key, { loggedAtMs: record.loggedAtMs, sql, ...(params ? { params } : {}), ...timing, from: record.from }, who);
  }
}

/** `connection authorized: user=app database=shop application_name=psql`. */
function authorized(message: string): { user?: string; database?: string } {
  const user = / user=(\S+)/.exec(message)?.[1];
  const database = / database=(\S+)/.exec(message)?.[1];
  return { ...(user ? { user } : {}), ...(database ? { database } : {}) };
}

/**
 * The values of `parameters: $1 = '5', $2 = NULL, $3 = 'it''s'` in the order of their numbers.
 * An unterminated quote is an error, not a skip: PostgreSQL always closes the quote it opens (it marks
 * a value cut by log_parameter_max_length with `...` inside the quotes), so one left open means the
 * log itself was cut or garbled there, and the statements around it cannot be trusted either.
 */
export function parameters(detail: string | undefined, from: string): (string | null)[] | undefined {
  if (detail === undefined || !detail.startsWith('parameters: ')) return undefined;
  const text = detail.slice('parameters: '.length);
  const values: (string | null)[] = [];
  let i = 0;
  while (i < text.length) {
    const head = /^\$(\d+) = /.exec(text.slice(i));
    if (!head) throw new UserError(`${from}: the parameters line does not read as $N = 'value', ... at "${text.slice(i, i + 30)}"`, 'the log is damaged here');
    i += head[0].length;
    const n = Number(head[1]);
    if (text.startsWith('NULL', i)) {
      values[n - 1] = null;
      i += 4;
    } else if (text[i] === "'") {
      let value = '';
      let closed = false;
      for (i++; i < text.length; i++) {
        if (text[i] !== "'") value += text[i];
        else if (text[i + 1] === "'") ((value += "'"), i++);
        else {
          closed = true;
          i++;
          break;
        }
      }
      if (!closed) throw new UserError(`${from}: parameter $${n} has an unterminated quoted value`, 'the log was cut or garbled here; capture a whole log');
      values[n - 1] = value;
    } else throw new UserError(`${from}: parameter $${n} is neither NULL nor a quoted value`, 'the log is damaged here');
    if (text.startsWith(', ', i)) i += 2;
    else if (i < text.length) throw new UserError(`${from}: unexpected text after parameter $${n}: "${text.slice(i, i + 30)}"`, 'the log is damaged here');
  }
  return Array.from(values, (v) => (v === undefined ? null : v));
}
