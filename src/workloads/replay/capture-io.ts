import { readFileSync } from 'node:fs';
import { UserError } from '../../errors.js';
import { fileErrorReason } from '../../common/file-errors.js';
import { writeWhole } from '../../common/write-whole.js';
import { CAPTURE_FORMAT, CAPTURE_VERSION, type CaptureFile, type StatementKind } from './capture-file.js';

/** The statement kinds a capture file may hold; anything else is a damaged or foreign file. */
export const STATEMENT_KINDS: readonly StatementKind[] = ['select', 'insert', 'update', 'delete', 'begin', 'commit', 'rollback', 'other'];

/**
 * Writes a capture file whole or not at all (common/write-whole.ts), so that an interrupted capture
 * never leaves half a file that replay would then refuse (or, worse, half read).
 */
export async function writeCaptureFile(capture: CaptureFile, file: string): Promise<void> {
  try {
    await writeWhole(file, `${JSON.stringify(capture)}\n`);
  } catch (error) {
    throw new UserError(`cannot write the capture file ${file}: ${fileErrorReason(error)}`, 'give -o a path in a folder you can write to');
  }
}

/**
 * Reads and checks a capture file. The format and version are checked first, so a file of another
 * kind or from a newer headroom is refused in one line; then the shape every reader relies on (each
 * session's statements with their times, text, kind and place), so replay never meets a half-formed
 * statement part way through a run. Unknown extra fields are left alone: a same-version writer may add
 * optional ones.
 */
export function readCaptureFile(file: string): CaptureFile {
  const parsed = readJson(file);
  if (!isRecord(parsed) || parsed['format'] !== CAPTURE_FORMAT) {
    throw new UserError(`${file} is not a headroom capture file (no "format": "${CAPTURE_FORMAT}")`, 'give a file written by headroom capture');
  }
  const version = parsed['version'];
  if (version !== CAPTURE_VERSION) {
    const newer = typeof version === 'number' && version > CAPTURE_VERSION;
    throw new UserError(
      `${file} is capture file version ${String(version)}; this headroom reads version ${CAPTURE_VERSION}`,
      newer ? 'use the newer headroom that wrote it, or capture the log again with this one' : 'capture the log again with this headroom',
    );
  }
  const problem = shapeProblem(parsed);
  if (problem !== undefined) throw new UserError(`${file} is a damaged capture file (${problem})`, 'capture the log again with headroom capture');
  return parsed as unknown as CaptureFile;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UserError(`no such file: ${file}`, 'give the path of a file written by headroom capture -o FILE');
    throw new UserError(`cannot read ${file}: ${fileErrorReason(error)}`, 'check the path and its permissions', { cause: error });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UserError(`${file} is not a headroom capture file (not JSON)`, 'give a file written by headroom capture');
  }
}

/** The first thing wrong with the file's shape, named by its JSON path; undefined when it is whole. */
function shapeProblem(file: Record<string, unknown>): string | undefined {
  const source = file['source'];
  if (!isRecord(source)) return 'field "source" is missing or wrong';
  if (typeof source['dbms'] !== 'string') return 'field "source.dbms" is missing or wrong';
  if (typeof source['kind'] !== 'string') return 'field "source.kind" is missing or wrong';
  if (!Array.isArray(source['files'])) return 'field "source.files" is missing or wrong';
  if (source['server'] !== undefined && !isRecord(source['server'])) return 'field "source.server" is wrong';
  if (typeof file['startedAt'] !== 'string') return 'field "startedAt" is missing or wrong';
  if (!isNumber(file['durationS'])) return 'field "durationS" is missing or wrong';
  if (!Array.isArray(file['skipped'])) return 'field "skipped" is missing or wrong';
  const summary = file['summary'];
  if (!isRecord(summary) || !isNumber(summary['statements']) || !isRecord(summary['byKind']) || !Array.isArray(summary['perSecond']))
    return 'field "summary" is missing or wrong';
  const sessions = file['sessions'];
  if (!Array.isArray(sessions)) return 'field "sessions" is missing or wrong';
  for (const [i, session] of sessions.entries()) {
    const at = `sessions[${i}]`;
    if (!isRecord(session)) return `${at} is not an object`;
    if (typeof session['id'] !== 'string') return `${at}.id is missing or wrong`;
    if (!isNumber(session['startS'])) return `${at}.startS is missing or wrong`;
    const statements = session['statements'];
    if (!Array.isArray(statements)) return `${at}.statements is missing or wrong`;
    for (const [j, statement] of statements.entries()) {
      const problem = statementProblem(statement);
      if (problem !== undefined) return `${at}.statements[${j}]${problem}`;
    }
  }
  return undefined;
}

function statementProblem(statement: unknown): string | undefined {
  if (!isRecord(statement)) return ' is not an object';
  if (!isNumber(statement['atS'])) return '.atS is missing or wrong';
  if (typeof statement['sql'] !== 'string') return '.sql is missing or wrong';
  if (!STATEMENT_KINDS.includes(statement['kind'] as StatementKind)) return `.kind is not one of ${STATEMENT_KINDS.join(', ')}`;
  if (typeof statement['from'] !== 'string') return '.from is missing or wrong';
  const params = statement['params'];
  if (params !== undefined && (!Array.isArray(params) || !params.every((p) => p === null || typeof p === 'string')))
    return '.params is not a list of strings and nulls';
  if (statement['durationMs'] !== undefined && !isNumber(statement['durationMs'])) return '.durationMs is wrong';
  if (statement['rows'] !== undefined && !isNumber(statement['rows'])) return '.rows is wrong';
  if (statement['error'] !== undefined && typeof statement['error'] !== 'string') return '.error is wrong';
  return undefined;
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
