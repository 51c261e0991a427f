import { mkdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes a file through a temporary file and a rename, so a file that exists is whole (a crash or
 * a full disk never leaves half of it), and a failed write leaves no temporary file. A symbolic
 * link is followed and the file it names replaced, so the link stays a link. A device, FIFO or
 * socket at that path (-o /dev/null, a named pipe) is written as it is: a rename would replace it
 * with a regular file, and it holds no earlier version to protect.
 */
export async function writeWhole(file: string, content: string): Promise<void> {
  const target = await realpath(file).catch(() => file);
  if (await isSpecialFile(target)) return writeFile(target, content);
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    await mkdir(path.dirname(path.resolve(target)), { recursive: true });
    await writeFile(temporary, content);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

async function isSpecialFile(file: string): Promise<boolean> {
  const found = await stat(file).catch(() => undefined);
  return found !== undefined && !found.isFile() && !found.isDirectory();
}
