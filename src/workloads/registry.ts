import { UserError } from '../errors.js';
import type { Workload } from './workload.js';
import { resolve } from 'node:path';
import { chain } from './chain/index.js';
import { kv } from './kv/index.js';
import { peak } from './peak/index.js';
import { tpcb } from './tpcb/index.js';
import { tpcc } from './tpcc/index.js';
import { replay } from './replay/index.js';

export const WORKLOADS: readonly Workload[] = [tpcb, chain, tpcc, kv, peak];

export const DEFAULT_WORKLOAD = 'tpcb';

/** Workload modules loaded in this thread (src/module/load-module.ts registers them), by the text the user gave and by absolute path. */
const modules = new Map<string, Workload>();

export function registerModuleWorkload(text: string, path: string, workload: Workload): void {
  modules.set(text, workload);
  modules.set(path, workload);
}

/** A built-in workload by name, or a workload module already loaded by its path. */
export function findWorkload(name: string): Workload {
  const module = modules.get(name) ?? modules.get(resolve(name));
  if (module) return module;
  // replay is its own verb's (headroom replay), not one `run` lists; its jobs find it here.
  const workload = [...WORKLOADS, replay].find((w) => w.name === name);
  if (!workload) throw new UserError(`unknown workload "${name}"`, `known workloads: ${WORKLOADS.map((w) => w.name).join(', ')} (headroom list)`);
  return workload;
}
