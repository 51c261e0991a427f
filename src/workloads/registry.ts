import { UserError } from '../errors.js';
import type { Workload } from './workload.js';
import { chain } from './chain/index.js';
import { kv } from './kv/index.js';
import { peak } from './peak/index.js';
import { tpcb } from './tpcb/index.js';
import { tpcc } from './tpcc/index.js';

export const WORKLOADS: readonly Workload[] = [tpcb, chain, tpcc, kv, peak];

export const DEFAULT_WORKLOAD = 'tpcb';

export function findWorkload(name: string): Workload {
  const workload = WORKLOADS.find((w) => w.name === name);
  if (!workload) throw new UserError(`unknown workload "${name}"`, `known workloads: ${WORKLOADS.map((w) => w.name).join(', ')} (headroom list)`);
  return workload;
}
