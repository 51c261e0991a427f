import { statfs } from 'node:fs/promises';
import { runsOnThisMachine, serverTargetOf } from '../config/target.js';
import type { Workload } from '../workloads/workload.js';
import type { Session } from './session.js';

/** From this size on a load is large enough to announce, and to say when its free space cannot be checked. */
const LARGE_BYTES = 1024 ** 3;

const GB = 1024 ** 3;

/**
 * Before a load: its estimated size (the workload's own figure, measured on PostgreSQL) against the
 * free space where the data goes, when that is on this machine. Lines for the user, or none for a
 * small load that fits. Never refuses: the estimate is approximate and other DBMSs store differently.
 */
export async function diskSpaceLines(session: Session, workload: Workload, scale: number): Promise<string[]> {
  const bytes = workload.estimatedBytes?.(scale);
  if (bytes === undefined) return [];
  const size = `about ${formatBytes(bytes)} (as measured on PostgreSQL; other DBMSs differ)`;
  const folder = await dataFolder(session).catch(() => undefined);
  if (folder === undefined) {
    return bytes >= LARGE_BYTES
      ? [`${workload.name} at scale ${scale} needs ${size}; headroom cannot see the server's free space from here: make sure it has room`]
      : [];
  }
  const free = await freeBytes(folder);
  if (free === undefined) return bytes >= LARGE_BYTES ? [`${workload.name} at scale ${scale} needs ${size}; the free space of ${folder} cannot be read`] : [];
  if (bytes > free)
    return [`warning: ${workload.name} at scale ${scale} needs ${size}, but ${folder} has ${formatBytes(free)} free: the load may fill the disk`];
  return bytes >= LARGE_BYTES ? [`${workload.name} at scale ${scale} needs ${size}; ${folder} has ${formatBytes(free)} free`] : [];
}

/** Where the DBMS keeps its data, when that is on this machine (an embedded one, or a server here) and the driver can say. */
async function dataFolder(session: Session): Promise<string | undefined> {
  const { target, conn, driver } = session;
  if (serverTargetOf(target) && !runsOnThisMachine(target)) return undefined;
  return driver.dataFolder(conn);
}

async function freeBytes(folder: string): Promise<number | undefined> {
  try {
    const stats = await statfs(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

export function formatBytes(bytes: number): string {
  return bytes >= GB ? `${(bytes / GB).toFixed(1)} GB` : `${Math.max(1, Math.round(bytes / 1024 ** 2))} MB`;
}
