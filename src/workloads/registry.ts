import { UserError } from '../errors.js';
import type { OptionSpec } from '../config/options.js';
import type { Workload } from './workload.js';
import { resolve } from 'node:path';
import { CHAIN_OPTIONS } from './chain/options.js';
import { KV_OPTIONS } from './kv/options.js';
import { PEAK_OPTIONS } from './peak/options.js';
import { TPCB_OPTIONS } from './tpcb/options.js';
import { TPCC_OPTIONS } from './tpcc/options.js';

/**
 * A built-in workload: its name and options known at once (a command line is parsed with every
 * workload's options), its code loaded only when a command uses it, so that `headroom run tpcb`
 * loads none of tpcc's, chain's, kv's or peak's modules.
 */
interface BuiltIn {
  name: string;
  options: readonly OptionSpec[];
  load(): Promise<Workload>;
}

const BUILT_INS: readonly BuiltIn[] = [
  { name: 'tpcb', options: TPCB_OPTIONS, load: async () => (await import('./tpcb/index.js')).tpcb },
  { name: 'chain', options: CHAIN_OPTIONS, load: async () => (await import('./chain/index.js')).chain },
  { name: 'tpcc', options: TPCC_OPTIONS, load: async () => (await import('./tpcc/index.js')).tpcc },
  { name: 'kv', options: KV_OPTIONS, load: async () => (await import('./kv/index.js')).kv },
  { name: 'peak', options: PEAK_OPTIONS, load: async () => (await import('./peak/index.js')).peak },
];

/** headroom replay's workload: its options are the verb's, and `headroom list` does not show it. */
const REPLAY: BuiltIn = { name: 'replay', options: [], load: async () => (await import('./replay/index.js')).replay };

/** The built-in workloads' names, in the order `headroom list` shows them. */
export const WORKLOAD_NAMES: readonly string[] = BUILT_INS.map((b) => b.name);

/** The built-in workloads' own options, without loading their code. */
export const BUILT_IN_OPTIONS: readonly OptionSpec[] = BUILT_INS.flatMap((b) => b.options);

export const DEFAULT_WORKLOAD = 'tpcb';

/** Built-in workloads loaded in this thread, by name. */
const builtIns = new Map<string, Workload>();

/** Workload modules loaded in this thread (src/module/load-module.ts registers them), by the text the user gave and by absolute path. */
const modules = new Map<string, Workload>();

export function registerModuleWorkload(text: string, path: string, workload: Workload): void {
  modules.set(text, workload);
  modules.set(path, workload);
}

export function isBuiltInWorkload(name: string): boolean {
  return WORKLOAD_NAMES.includes(name);
}

/** A built-in workload by name (its code loaded on first use), or a workload module already loaded by its path. */
export async function loadWorkload(name: string): Promise<Workload> {
  const module = modules.get(name) ?? modules.get(resolve(name));
  if (module) return module;
  const known = builtIns.get(name);
  if (known) return known;
  // replay is its own verb's (headroom replay), not one `run` lists; its jobs find it here.
  const builtIn = [...BUILT_INS, REPLAY].find((b) => b.name === name);
  if (!builtIn) throw new UserError(`unknown workload "${name}"`, `known workloads: ${WORKLOAD_NAMES.join(', ')} (headroom list)`);
  const workload = await builtIn.load();
  builtIns.set(name, workload);
  return workload;
}

/** Every built-in workload, loaded (headroom list, and a load asking whose tables it would replace). */
export async function loadWorkloads(): Promise<Workload[]> {
  return Promise.all(WORKLOAD_NAMES.map((name) => loadWorkload(name)));
}
