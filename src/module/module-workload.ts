import { resolve } from 'node:path';
import type { Workload } from '../workloads/workload.js';
import type { DemandDefinition } from './api.js';

// What the run pipeline asks of a workload module, apart from adapt.ts and load-module.ts: a run
// of a built-in workload loads neither (nor esbuild).

/** Where a module came from, recorded with every result of its runs. */
export interface ModuleSource {
  /** Absolute path of the module file. */
  path: string;
  sha256: string;
  /** What its load() is (load-module.ts's loadCodeSha256): kept with the data it loads, so that a run on older data can tell. */
  loadSha256: string;
}

/** A module's workload: the internal contract, plus where it came from and its demand for `plan`. */
export interface ModuleWorkload extends Workload {
  module: ModuleSource;
  demand?: DemandDefinition;
}

export function isModuleWorkload(workload: Workload): workload is ModuleWorkload {
  return (workload as Partial<ModuleWorkload>).module !== undefined;
}

/** What a JobConfig names: a built-in by name, a module by its absolute path (each worker thread loads it). */
export function engineWorkload(workload: Workload): string {
  return isModuleWorkload(workload) ? workload.module.path : workload.name;
}

/** The result's config.module for a module's run; nothing for a built-in. */
export function moduleRecord(workload: Workload): { module?: ModuleSource } {
  return isModuleWorkload(workload) ? { module: { path: workload.module.path, sha256: workload.module.sha256, loadSha256: workload.module.loadSha256 } } : {};
}

/** Modules loaded in this thread (load-module.ts loads them), by the text the user gave and by absolute path. */
const loaded = new Map<string, ModuleWorkload>();

export function keepLoadedModule(text: string, path: string, workload: ModuleWorkload): void {
  loaded.set(text, workload);
  loaded.set(path, workload);
}

/** A loaded module's workload, or undefined when `text` names none loaded here. */
export function loadedModule(text: string): ModuleWorkload | undefined {
  return loaded.get(text) ?? loaded.get(resolve(text));
}

export function loadedModules(): ModuleWorkload[] {
  return [...new Set(loaded.values())];
}
