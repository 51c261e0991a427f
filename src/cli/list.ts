import { formatOptionHelp } from '../config/options.js';
import { DRIVERS } from '../drivers/registry.js';
import { DEFAULT_WORKLOAD, WORKLOADS } from '../workloads/registry.js';

/** `headroom list`: workloads with their options and defaults, and drivers with their URLs. */
export function listText(): string {
  const lines = ['workloads:'];
  for (const w of WORKLOADS) {
    lines.push(`  ${w.name}${w.name === DEFAULT_WORKLOAD ? ' (default)' : ''}: ${w.description}`);
    lines.push(`    -s: ${w.scaleHelp} (default ${w.defaultScale})`);
    if (w.options.length > 0) lines.push(formatOptionHelp(w.options).replace(/^/gm, '  '));
  }
  lines.push('', 'drivers:');
  for (const d of DRIVERS) lines.push(`  ${d.dbms}: ${d.url}`, `    ${d.notes} (client: ${d.client})`);
  return lines.join('\n');
}
