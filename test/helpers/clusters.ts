import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { skipOrFail } from './skip-or-fail.js';

export type ClusterKind = 'postgres' | 'galera';

const SCRIPT = (kind: ClusterKind): string => fileURLToPath(new URL(`../../../scripts/cluster-${kind}.sh`, import.meta.url));

export interface Cluster {
  /** The primary's URL with ?replicas= for the other nodes. */
  url: string;
  /** pgpool-II in front of the PostgreSQL cluster; undefined for Galera. */
  poolUrl: string | undefined;
  down(): void;
}

/**
 * Starts (or reuses) a cluster of the project's own with its script. Where it cannot be started
 * the test fails under CI=true and is skipped otherwise, naming the script to run.
 */
export function startCluster(kind: ClusterKind, t: TestContext): Cluster | undefined {
  let output: string;
  try {
    if (process.getuid?.() !== 0) throw new Error('the cluster scripts need root to run the servers as their own users');
    output = execFileSync('bash', [SCRIPT(kind), 'up'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });
  } catch (error) {
    const detail = error instanceof Error ? (error as { stderr?: string }).stderr?.trim().split('\n').slice(-3).join(' / ') || error.message : String(error);
    skipOrFail(t, `the ${kind} cluster could not be started (${detail}); start it with: bash scripts/cluster-${kind}.sh up`);
    return undefined;
  }
  const url = (name: string): string | undefined => new RegExp(`^${name}\\s+(\\S+)$`, 'm').exec(output)?.[1];
  return {
    url: url(kind === 'postgres' ? 'primary' : 'node1')!,
    poolUrl: url('pgpool'),
    down: () => void execFileSync('bash', [SCRIPT(kind), 'down'], { stdio: 'ignore' }),
  };
}
