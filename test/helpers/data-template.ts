import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * A throwaway server's fresh data directory (initdb's, mariadb-install-db's), made once per test
 * run and copied for each server after the first: making one takes seconds, copying it a fraction
 * of that, and the suite starts a dozen such servers. Only when HEADROOM_TEST_CACHE names a folder
 * (scripts/run-tests.mjs makes one for the run and removes it after); otherwise `make` runs for
 * each server, as it always did. The copy is of a directory no server has run on yet.
 */
export function freshDataDirectory(name: string, target: string, owner: { uid: number; gid: number }, make: (directory: string) => void): void {
  const cache = process.env['HEADROOM_TEST_CACHE'];
  if (!cache) return make(target);
  const template = path.join(cache, name);
  if (!existsSync(template)) {
    // Made beside the cache's entry and renamed into place: a template is there whole or not at all.
    const building = mkdtempSync(path.join(cache, `${name}.building-`));
    chownSync(building, owner.uid, owner.gid);
    try {
      make(path.join(building, 'data'));
      if (!existsSync(template)) renameSync(path.join(building, 'data'), template);
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
  }
  // cp -a keeps the owner (the server's user) and the modes the server checks (0700 on the data directory).
  execFileSync('cp', ['-a', template, target], { stdio: 'pipe' });
}
