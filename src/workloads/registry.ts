import { UserError } from '../errors.js';
import type { Workload } from './workload.js';
import { loadedModule } from '../module/load-module.js';
import { chain } from './chain/index.js';
import { kv } from './kv/index.js';
import { peak } from './peak/index.js';
import { tpcb } from './tpcb/index.js';
import { tpcc } from './tpcc/index.js';

export const WORKLOADS: readonly Workload[] = [tpcb, chain, tpcc, kv, peak];

export const DEFAULT_WORKLOAD = 'tpcb';

/** A built-in workload by name, or a workload module already loaded (src/module/load-module.ts) by its path. */
export function findWorkload(name: string): Workload {
  const module = loadedModule(name);
  if (module) return module;
  const workload = WORKLOADS.find((w) => w.name === name);
  if (!workload) throw new UserError(`unknown workload "${name}"`, `known workloads: ${WORKLOADS.map((w) => w.name).join(', ')} (headroom list)`);
  return workload;
}
