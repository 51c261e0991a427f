import { readFileSync } from 'node:fs';
import { UserError } from '../../errors.js';
import { fileErrorReason } from '../../common/file-errors.js';
import { CAPTURE_FORMAT, CAPTURE_VERSION, type CaptureFile } from './capture-file.js';

const HINT = 'give a file written by headroom capture';

/**
 * Reads a capture file for replay and checks what replay relies on: its format and version (one
 * line naming what it found otherwise), and sessions whose statements have a start and a text.
 */
export function readCapture(path: string): CaptureFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserError(`cannot read capture ${path}: ${fileErrorReason(error)}`, HINT);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UserError(`capture ${path} is not JSON: ${(error as Error).message}`, HINT);
  }
  const file = data as Partial<CaptureFile> | null;
  if (typeof file !== 'object' || file === null || file.format !== CAPTURE_FORMAT)
    throw new UserError(`${path} is not a headroom capture (format ${JSON.stringify(file?.format ?? null)}, expected "${CAPTURE_FORMAT}")`, HINT);
  if (file.version !== CAPTURE_VERSION)
    throw new UserError(
      `capture ${path} is version ${JSON.stringify(file.version ?? null)}, this headroom replays version ${CAPTURE_VERSION}`,
      'capture the load again with this headroom, or replay it with the headroom that captured it',
    );
  if (!Array.isArray(file.sessions) || typeof file.durationS !== 'number' || typeof file.source !== 'object' || file.source === null)
    throw new UserError(`capture ${path} lacks its sessions, durationS or source`, HINT);
  for (const [s, session] of file.sessions.entries()) {
    if (!Array.isArray(session?.statements)) throw new UserError(`capture ${path}: session ${s} has no statements list`, HINT);
    for (const [i, st] of session.statements.entries()) {
      if (typeof st?.sql !== 'string' || typeof st.atS !== 'number' || !Number.isFinite(st.atS))
        throw new UserError(`capture ${path}: session ${session.id ?? s} statement ${i} lacks its sql or atS`, HINT);
    }
  }
  return file as CaptureFile;
}
