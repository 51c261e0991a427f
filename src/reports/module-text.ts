import type { RunResult } from '../result/result.js';
import type { LoadedResult } from './input.js';

/** `--seats 500 --hot-shows 5`: option values as the command line gives them. */
export function optionsAsFlags(options: Readonly<Record<string, unknown>>): string {
  return Object.entries(options)
    .map(([name, value]) => (value === true ? `--${name}` : `--${name} ${Array.isArray(value) ? value.join(',') : String(value)}`))
    .join(' ');
}

/** The module's file and version, and the options its data was loaded with: which model, which data. */
export function moduleLines(result: RunResult): string[] {
  const lines: string[] = [];
  const module = result.config.module;
  if (module) lines.push(`module: ${module.path} (sha256 ${module.sha256})`);
  const options = result.data.options;
  if (options) {
    const by = result.data.loadedBy === 'this-run' ? 'by this run' : 'earlier';
    lines.push(`data: loaded ${by} with ${Object.keys(options).length > 0 ? optionsAsFlags(options) : 'no options read by the loader'}`);
  }
  const then = result.data.loadSha256;
  if (module?.loadSha256 !== undefined && then !== undefined && then !== module.loadSha256)
    lines.push(
      `data: loaded by an earlier load() (load sha256 ${then.slice(0, 12)}), not the module's now (${module.loadSha256.slice(0, 12)}): reload it to measure what load() makes now`,
    );
  return lines;
}

/**
 * `compare`: which module file and version each run measured, and the data options where they were
 * recorded; says so when the versions (sha256) or the data options differ, for then the runs
 * measured different models or different data.
 */
export function moduleComparisonLines(runs: readonly LoadedResult[]): string[] {
  const modules = runs.map((r) => r.result.config.module);
  if (modules.every((m) => m === undefined)) return [];
  const lines = [
    'workload modules:',
    ...runs.map((r, i) => {
      const m = r.result.config.module;
      const data = r.result.data.options ? `; data ${optionsAsFlags(r.result.data.options) || 'without options'}` : '';
      return `  ${i + 1}: ${m ? `${m.path} sha256 ${m.sha256}` : `built-in ${r.result.config.workload}`}${data}`;
    }),
  ];
  const versions = new Set(modules.map((m) => m?.sha256 ?? '-'));
  if (versions.size > 1) {
    const paths = new Set(modules.map((m) => m?.path ?? '-'));
    lines.push(
      paths.size === 1
        ? '  the sha256 differs: the runs measured different versions of the module file'
        : '  the modules differ (file or sha256): the runs measured different models',
    );
  }
  const data = new Set(runs.map((r) => (r.result.data.options ? optionsAsFlags(r.result.data.options) : '-')));
  if (data.size > 1 && runs.every((r) => r.result.data.options)) lines.push('  the data options differ: the runs measured different data');
  return lines;
}
