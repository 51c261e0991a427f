import type { OptionSpec } from '../config/options.js';
import { isModulePath } from '../module/module-path.js';
import type { ModuleWorkload } from '../module/module-workload.js';

/** Options whose value is a file that is not a workload module to load (a result, a log, the module capture writes), even when it ends in .js. */
const FILE_VALUED = new Set(['-o', '--out', '-f', '--file', '--log-prefix', '--journal', '--csv', '--module']);

/**
 * Loads every workload module the command line names (a WORKLOAD position, or --workload FILE of
 * an experiment) so that the verb's parser finds it by that text as it finds a built-in name.
 */
export async function preloadModules(argv: readonly string[], verbOptions: readonly OptionSpec[]): Promise<ModuleWorkload[]> {
  const paths = argv.filter((word, i) => isModulePath(word) && !FILE_VALUED.has(argv[i - 1] ?? ''));
  if (paths.length === 0) return [];
  // Loaded only when a module is named: bundling and checking one is the module layer's whole weight.
  const [{ loadWorkloadModule }, { WORKLOAD_NAMES }] = await Promise.all([import('../module/load-module.js'), import('../workloads/registry.js')]);
  const reserved = {
    names: WORKLOAD_NAMES,
    options: verbOptions.flatMap((o) => [o.long, ...(o.short ? [o.short] : [])]),
  };
  const modules: ModuleWorkload[] = [];
  for (const path of paths) modules.push(await loadWorkloadModule(path, reserved));
  return modules;
}
