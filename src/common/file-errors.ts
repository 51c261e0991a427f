import { writeSync } from 'node:fs';

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOTDIR: 'a part of the path is a file, not a folder',
  // mkdir -p's answer when a part of the path is a file.
  EEXIST: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder',
  ENOENT: 'the folder does not take new files',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file is too large for the file system',
  EIO: 'an input/output error of the device',
};

/** Why a file could not be written, in words for the user's one line (the errno's name when it has none here). */
export function fileErrorReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (code && REASONS[code]) ?? (error instanceof Error ? error.message : String(error));
}

/**
 * writeSync() until every byte is written. A write the disk cut short (it filled up part way)
 * returns fewer bytes, not an error; the next write then says why (ENOSPC), so nothing is dropped in silence.
 */
export function writeAllSync(fd: number, data: Buffer): void {
  for (let offset = 0; offset < data.length;) {
    const written = writeSync(fd, data, offset, data.length - offset);
    if (written <= 0) throw Object.assign(new Error('no space left on device, write'), { code: 'ENOSPC' });
    offset += written;
  }
}
