import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { skipOrFail } from './skip-or-fail.js';

/** A real small file system of the test's own: a tmpfs, full from the start or filling as a run writes to it. */
export interface SmallDisk {
  dir: string;
  /** Takes every free byte, so that the next write fails with ENOSPC (creating an empty file still works). */
  fill(): void;
}

/**
 * Mounts a tmpfs of `kilobytes` on a new folder, unmounted and removed when the test ends. Needs
 * root (mount); without it the test is skipped, or fails under CI=true, saying so.
 */
export function smallDisk(t: { skip(message: string): void; after(fn: () => void): void }, kilobytes: number): SmallDisk | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kilobytes}k`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const why = `a full-disk test mounts a small tmpfs, which needs root (mount -t tmpfs): ${((error as { stderr?: Buffer }).stderr ?? '').toString().trim() || (error as Error).message}`;
    skipOrFail(t, why);
    return undefined;
  }
  t.after(() => {
    execFileSync('umount', [dir], { stdio: 'pipe' });
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    fill() {
      // Page by page until the file system says no: what is left is less than a page, which no write gets.
      const filler = path.join(dir, 'filler');
      writeFileSync(filler, '');
      const page = Buffer.alloc(4096);
      try {
        for (;;) writeFileSync(filler, page, { flag: 'a' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    },
  };
}
