import { UserError } from '../../../errors.js';
import type { CaptureBuilder } from '../capture-builder.js';
import { logLines } from '../log-lines.js';
import { GENERAL_LOG_COMMANDS, GeneralLogReader, UNKNOWN_COMMAND, type GeneralLogEntry } from './entries.js';

/**
 * An entry line: the time (MariaDB's `261205 21:55:11`, MySQL's ISO form) only on the first entry of
 * each second, then the thread id right-aligned, the command and a tab before its argument.
 */
const ENTRY = /^(?:(\d{6} [ \d]\d:\d\d:\d\d)|(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?))?\s+(\d+) ([A-Z][A-Za-z_ ]*?)\t(.*)$/;
/** The lines the server writes at each start (and FLUSH LOGS): thread ids begin again after them. */
const HEADER = [/^\S+, Version: .* started with:$/, /^Tcp port: \d+ +Unix socket: /, /^Time\s+Id\s+Command\s+Argument$/];

/** A last entry whose line has no newline yet: a counted skip, since the server may still have been writing it. */
export const CUT_SHORT = 'the last entry, cut short (the server was still writing it)';

/** Lines before the first entry that are not the server's header: what was cut off at the start. */
export const BEFORE_FIRST_ENTRY = 'lines before the first entry (the end of a statement begun in an earlier file)';

/** Reads MariaDB's general log file into the builder. */
export function readGeneralLogFile(file: string, shown: string, builder: CaptureBuilder): void {
  const reader = new GeneralLogReader(builder);
  let run = 1;
  let lastMs: number | undefined;
  let current: GeneralLogEntry | undefined;
  let entries = 0;
  let inUnknown = false;
  // Entries before the file's first time (a file reopened within a second) took place in the second
  // before it: they get that time once it comes, within the log's own precision.
  const untimed: GeneralLogEntry[] = [];
  const flush = (): void => {
    if (current && Number.isNaN(current.loggedAtMs)) untimed.push(current);
    else if (current) reader.read(current);
    current = undefined;
  };
  for (const { text, number, ended } of logLines(file)) {
    const from = `${shown}:${number}`;
    if (!ended) {
      // The file ends inside a line: the server was still writing it, and its entry may be cut.
      if (!ENTRY.test(text) && current) {
        builder.skip(CUT_SHORT, current.from);
        current = undefined;
      } else builder.skip(CUT_SHORT, from);
      break;
    }
    if (HEADER.some((header) => header.test(text))) {
      flush();
      if (/started with:$/.test(text) && entries > 0) run++;
      continue;
    }
    const m = ENTRY.exec(text);
    const command = m?.[4];
    if (!m || !command) {
      // The general log writes a multi-line statement as it is: a line that is no entry continues the one before.
      if (current) current.argument += `\n${text}`;
      else if (!inUnknown && text !== '') builder.skip(BEFORE_FIRST_ENTRY, from);
      continue;
    }
    flush();
    inUnknown = !GENERAL_LOG_COMMANDS.has(command);
    if (inUnknown) {
      // An entry in the log's layout (thread id, command, tab) with a command capture does not know is
      // a counted skip with its lines, not an error: a newer server may add commands, and the other
      // entries are still whole. Taken as part of the statement before, it would change that statement.
      builder.skip(UNKNOWN_COMMAND, from);
      continue;
    }
    entries++;
    if (m[1] !== undefined || m[2] !== undefined) {
      const ms = m[1] !== undefined ? shortTime(m[1]) : Date.parse(m[2]!.endsWith('Z') || /[+-]\d\d:\d\d$/.test(m[2]!) ? m[2]! : `${m[2]}Z`);
      if (Number.isNaN(ms)) throw new UserError(`${from}: the time "${m[1] ?? m[2]}" is not a valid time`, 'the log is damaged here');
      lastMs = ms;
      for (const entry of untimed.splice(0)) reader.read({ ...entry, loggedAtMs: ms });
    }
    const threadId = m[3]!;
    current = { loggedAtMs: lastMs ?? NaN, key: `${run}:${threadId}`, threadId: run > 1 ? `${threadId}#${run}` : threadId, command, argument: m[5]!, from };
  }
  flush();
  if (untimed.length > 0) throw new UserError(`${shown} gives no time for any entry`, "give MariaDB's general log file from its start");
  if (entries === 0)
    throw new UserError(`${shown} has no general-log entry`, "give MariaDB's general_log_file (SET GLOBAL general_log = ON), or --format for another log");
  builder.note(
    "MariaDB's general log file times entries to the second: statements within one second start together in the capture (mysql.general_log, --from-table, has microseconds)",
  );
}

/** `261205 21:55:11`: MariaDB's time, in the server's time zone, read as UTC (only the times between entries matter). */
function shortTime(text: string): number {
  const m = /^(\d\d)(\d\d)(\d\d) ([ \d]\d):(\d\d):(\d\d)$/.exec(text)!;
  return Date.parse(`20${m[1]}-${m[2]}-${m[3]}T${m[4]!.trim().padStart(2, '0')}:${m[5]}:${m[6]}Z`);
}
