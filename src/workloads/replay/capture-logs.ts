import { statSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../../errors.js';
import type { CaptureFile } from './capture-file.js';
import { CaptureBuilder } from './capture-builder.js';
import { logLines } from './log-lines.js';
import { compilePrefix, DEFAULT_PREFIXES, PGREPLAY_PREFIX, type CompiledPrefix } from './postgres/prefix.js';
import { readStderrLog } from './postgres/stderr-log.js';
import { readCsvLog } from './postgres/csvlog.js';
import { readGeneralLogFile } from './mariadb/general-log-file.js';
import { GENERAL_LOG_COMMANDS } from './mariadb/entries.js';

export const LOG_FORMATS = ['stderr', 'csvlog', 'general-log'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface CaptureRequest {
  files: readonly string[];
  /** Forced; otherwise told from each file's first lines. */
  format?: LogFormat;
  /** The server's log_line_prefix, for a stderr log; otherwise pgreplay's and its %t form are tried. */
  prefix?: string;
}

export interface Captured {
  capture: CaptureFile;
  /** How the log was read, for the user (zones, precision, sessions kept without connection lines). */
  notes: string[];
}

/** How many lines from a file's start are looked at to tell its kind. */
const SNIFF_LINES = 200;
const CSV_START = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?(?: \S+)?,(?:"[^"]*")?,(?:"[^"]*")?,\d*,/;
const GENERAL_LOG_LINE = /^(?:\d{6} [ \d]\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\S+)?\s+\d+ ([A-Z][A-Za-z_ ]*?)\t/;
const GENERAL_LOG_HEADER = /^Time\s+Id\s+Command\s+Argument$/;

/**
 * Reads the logs into one capture file. Each file's kind is told from its first lines where that is
 * unambiguous (or forced with format); all files must be of one kind, since PostgreSQL writes the
 * same entries to its stderr and csvlog files and reading both would count every statement twice.
 */
export function captureLogs(request: CaptureRequest): Captured {
  if (request.files.length === 0)
    throw new UserError('headroom capture needs a log file', 'headroom capture LOG... -o capture.json (or --db mariadb://... --from-table)');
  const given = request.prefix === undefined ? undefined : compilePrefix(request.prefix);
  const kinds = request.files.map((file) => ({ file, ...kindOf(file, request.format, given) }));
  const first = kinds[0]!;
  const other = kinds.find((k) => k.format !== first.format);
  if (other)
    throw new UserError(
      `${first.file} is a ${first.format} log and ${other.file} a ${other.format} log`,
      'give the files of one log (PostgreSQL writes the same entries to stderr and csvlog: read one of them)',
    );
  const builder = new CaptureBuilder();
  for (const { file, format, prefix } of kinds) {
    if (format === 'stderr') readStderrLog(file, file, prefix!, builder);
    else if (format === 'csvlog') readCsvLog(file, file, builder);
    else readGeneralLogFile(file, file, builder);
  }
  const capture = builder.build({
    dbms: first.format === 'general-log' ? 'mariadb' : 'postgres',
    kind: first.format === 'general-log' ? 'general-log-file' : first.format,
    files: request.files.map((file) => path.resolve(file)),
  });
  return { capture, notes: builder.noteLines };
}

/** The file's kind, and for a stderr log the prefix its lines start with. */
function kindOf(file: string, forced: LogFormat | undefined, given: CompiledPrefix | undefined): { format: LogFormat; prefix?: CompiledPrefix } {
  const lines = firstLines(file);
  if (lines.every((line) => line.trim() === ''))
    throw new UserError(`${file} is empty: there is nothing to capture`, 'give a log the server has written to (with log_statement = all or general_log = ON)');
  const candidates = given ? [given] : DEFAULT_PREFIXES.map((text) => compilePrefix(text));
  const prefix = candidates.find((candidate) => lines.some((line) => candidate.match(line) !== undefined));
  if (forced === 'stderr') return { format: 'stderr', prefix: prefix ?? given ?? compilePrefix(PGREPLAY_PREFIX) };
  if (forced) return { format: forced };
  if (lines.some((line) => GENERAL_LOG_HEADER.test(line) || GENERAL_LOG_COMMANDS.has(GENERAL_LOG_LINE.exec(line)?.[1] ?? ''))) return { format: 'general-log' };
  if (lines.some((line) => CSV_START.test(line))) return { format: 'csvlog' };
  if (prefix) return { format: 'stderr', prefix };
  throw new UserError(
    `${file} is not a log headroom capture reads: no PostgreSQL stderr line with the log_line_prefix ${given ? `"${given.text}"` : `"${PGREPLAY_PREFIX}"`}, no csvlog record, no MariaDB general-log entry in its first ${SNIFF_LINES} lines`,
    "give the server's log_line_prefix with --prefix, or the kind with --format stderr|csvlog|general-log",
  );
}

function firstLines(file: string): string[] {
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ENOENT' ? `no such file: ${file}` : `cannot read ${file}: ${(error as Error).message}`, 'give the path of a server log');
  }
  if (stat.isDirectory()) throw new UserError(`${file} is a folder, not a log`, `name the log files in it, e.g. ${path.join(file, '*.log')}`);
  const lines: string[] = [];
  for (const { text } of logLines(file)) {
    lines.push(text);
    if (lines.length >= SNIFF_LINES) break;
  }
  return lines;
}
