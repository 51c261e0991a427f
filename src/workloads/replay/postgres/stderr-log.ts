import { UserError } from '../../../errors.js';
import type { CaptureBuilder } from '../capture-builder.js';
import { logLines } from '../log-lines.js';
import { parseLogTime, type CompiledPrefix } from './prefix.js';
import { PgRecordReader, type PgRecord } from './records.js';

/**
 * Lines before the first prefixed line are a counted skip, not an error: a rotated log starts
 * wherever the last file ended, and an entry begun in the previous file (its continuation lines, a
 * program's output) leaves nothing whole to keep; the rest of the file is still a whole capture.
 */
export const BEFORE_FIRST_ENTRY = 'lines before the first log entry (the end of an entry begun in an earlier file)';
/**
 * Lines that do not start with the prefix are a counted skip too: the server's stderr also carries
 * what other programs write there (pgreplay's documentation warns of it, and recommends csvlog), and
 * such output holds no statement. A file where no line starts with the prefix is an error instead:
 * the prefix given is not the server's.
 */
export const NOT_PREFIXED = "lines that do not start with the log_line_prefix (other programs' output on the server's stderr)";

/** A last entry whose line has no newline yet: a counted skip, as csvlog's last record cut short. */
export const CUT_SHORT = 'the last entry, cut short (the server was still writing it)';

/** Lines that belong to the entry before them (stderr writes them with their own prefix). */
const SUB_LINES = new Set(['DETAIL', 'HINT', 'CONTEXT', 'STATEMENT', 'QUERY', 'LOCATION']);

/** Reads one PostgreSQL stderr log (logging_collector's .log files) into the builder. */
export function readStderrLog(file: string, shown: string, prefix: CompiledPrefix, builder: CaptureBuilder): void {
  const reader = new PgRecordReader(builder);
  const generations = new Map<string, number>();
  let current: PgRecord | undefined;
  let appendTo: 'message' | 'detail' | 'query' | undefined;
  let prefixed = 0;
  let foreign = false;
  const flush = (): void => {
    if (current) reader.read(current);
    current = undefined;
    appendTo = undefined;
  };
  for (const { text, number, ended } of logLines(file)) {
    const from = `${shown}:${number}`;
    if (!ended) {
      // The file ends inside a line: the server was still writing it, and its entry may be cut.
      if (text.startsWith('\t') && current) {
        builder.skip(CUT_SHORT, current.from);
        current = undefined;
      } else builder.skip(CUT_SHORT, from);
      break;
    }
    if (text.startsWith('\t') && !foreign) {
      // PostgreSQL writes each further line of a message, statement or detail after a tab.
      if (current && appendTo) current[appendTo] = `${current[appendTo] ?? ''}\n${text.slice(1)}`;
      else if (prefixed === 0) builder.skip(BEFORE_FIRST_ENTRY, from);
      continue;
    }
    const matched = prefix.match(text);
    if (!matched) {
      if (text === '' && !foreign) continue;
      flush();
      builder.skip(prefixed === 0 ? BEFORE_FIRST_ENTRY : NOT_PREFIXED, from);
      foreign = prefixed > 0;
      continue;
    }
    foreign = false;
    prefixed++;
    const { fields, severity, message } = matched;
    const time = parseLogTime(fields.time);
    // The prefix matched, so this is the server's line: a time that is no time means the log is damaged, not foreign.
    if (Number.isNaN(time.ms)) throw new UserError(`${from}: the time "${fields.time}" in the line's prefix is not a valid time`, 'the log is damaged here');
    if (time.zoneUnknown)
      builder.note(`the log's times are in zone ${time.zoneUnknown}, read as UTC: startedAt is off by its offset, the times between statements are not`);
    let session = fields.session;
    if (session !== undefined && fields.byProcess) {
      // With %p and no %c a process id is reused by later sessions: each connection starts a new one.
      const generation = (generations.get(session) ?? 0) + (message.startsWith('connection received:') ? 1 : 0);
      generations.set(session, generation);
      session = generation > 1 ? `${session}#${generation}` : session;
    }
    if (SUB_LINES.has(severity)) {
      // A DETAIL or STATEMENT line is written with its entry, in the same write: one with no entry of
      // its session before it means lines are missing from the log, so what it belongs to is unknown.
      // That is an error rather than a skip, since the statements around the gap cannot be trusted.
      // So is a parameters: line after anything but an execute or a bind: its statement is missing.
      const orphanParameters = message.startsWith('parameters:') && !/^(?:duration: \S+ ms {2})?(?:execute|bind) /.test(current?.message ?? '');
      if (!current || current.session !== session || orphanParameters) {
        const what = message.startsWith('parameters:')
          ? 'a parameters: line with no execute before it'
          : `a ${severity} line with no log entry of its session before it`;
        throw new UserError(`${from}: ${what}`, 'lines are missing from the log here (it was cut or filtered); capture the whole log');
      }
      appendTo = severity === 'DETAIL' ? 'detail' : severity === 'STATEMENT' ? 'query' : undefined;
      if (appendTo) current[appendTo] = message;
      continue;
    }
    flush();
    current = {
      loggedAtMs: time.ms,
      ...(session !== undefined ? { session } : {}),
      ...(fields.user !== undefined ? { user: fields.user } : {}),
      ...(fields.database !== undefined ? { database: fields.database } : {}),
      severity,
      ...(fields.sqlState !== undefined ? { sqlState: fields.sqlState } : {}),
      message,
      from,
    };
    appendTo = 'message';
  }
  flush();
  if (prefixed === 0)
    throw new UserError(
      `no line of ${shown} starts with the log_line_prefix "${prefix.text}"`,
      "give the server's log_line_prefix with --prefix (SHOW log_line_prefix), and have lc_messages = 'C' or English so the levels read LOG, ERROR",
    );
}
