import { formatOptionHelp } from '../config/options.js';
import { DRIVERS } from '../drivers/registry.js';
import { DEFAULT_WORKLOAD, loadWorkloads } from '../workloads/registry.js';
import { loadedModules } from '../module/load-module.js';

/** `headroom list`: workloads with their options and defaults, and drivers with their URLs. */
export async function listText(): Promise<string> {
  const lines = ['workloads:'];
  // A module named on the line (headroom list ./my-workload.ts) is listed with the built-ins.
  for (const w of [...(await loadWorkloads()), ...loadedModules()]) {
    lines.push(`  ${w.name}${w.name === DEFAULT_WORKLOAD ? ' (default)' : ''}: ${w.description}`);
    lines.push(`    -s: ${w.scaleHelp} (default ${w.defaultScale})`);
    if (w.options.length > 0) lines.push(formatOptionHelp(w.options).replace(/^/gm, '  '));
  }
  lines.push('', 'drivers:');
  for (const d of DRIVERS) lines.push(`  ${d.dbms}: ${d.url}`, `    ${d.notes} (client: ${d.client})`);
  return lines.join('\n');
}
