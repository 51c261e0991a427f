import { dbmsLabel } from './comparison.js';
import type { LoadedResult } from './input.js';
import { applyNormalisation, normalisation } from './normalise.js';
import type { ReferenceEntry } from './reference.js';
import { table } from './text.js';

const DIGITS: Record<string, number> = { tps: 1, p50: 3, p99: 3 };
const UNITS: Record<string, string> = { tps: '', p50: ' ms', p99: ' ms' };

/** Load phases run from milliseconds (small scales) to hours: three significant digits below 100 s. */
function seconds(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

/**
 * `headroom compare --normalise REFERENCE:YOURS RUN...`: the coefficients, then each run (your run
 * of the reference first) as measured and as if on the reference machine, beside the reference's
 * figure for the run's DBMS.
 */
export function normaliseText(candidates: readonly ReferenceEntry[], yours: LoadedResult, others: readonly LoadedResult[]): string {
  const n = normalisation(candidates, yours);
  const runs = [yours, ...others.filter((o) => o.file !== yours.file)].map((run) => applyNormalisation(n, run, candidates));
  const fmt = (name: string, v: number | null): string => (v === null ? '-' : v.toFixed(DIGITS[name] ?? 2));
  const lines = [
    `reference: ${n.reference.label}: ${n.reference.workload} on ${n.reference.version}${n.reference.clients === null ? '' : `, ${n.reference.clients} clients`} (${n.reference.describe})`,
    `your run of it: ${yours.label}: ${n.yours.workload} on ${dbmsLabel(yours)}, ${n.yours.clients} clients (${n.yours.describe})`,
    '',
    'coefficient = reference / yours; a figure of this machine x coefficient = the figure as if on the reference machine',
    ...table([
      ['figure', 'reference', 'yours', 'coefficient'],
      ...n.metrics.map((c) => [`${c.name}${UNITS[c.name]}`, fmt(c.name, c.reference), fmt(c.name, c.yours), `x${c.factor.toFixed(3)}`]),
      ...n.phases.map((c) => [`load: ${c.name} s`, seconds(c.reference), seconds(c.yours), `x${c.factor.toFixed(3)}`]),
    ]),
    ...n.notes.map((note) => `note: ${note}`),
    '',
    'as if on the reference machine (vs ref: normalised / the reference figure for that DBMS):',
    ...table([
      ['run', 'DBMS', ...n.metrics.flatMap((c) => [`${c.name}${UNITS[c.name]}`, 'normalised', 'reference', 'vs ref'])],
      ...runs.map((r, i) => [
        `${i + 1}: ${r.run.label}`,
        dbmsLabel(r.run),
        ...r.metrics.flatMap((m) => [fmt(m.name, m.measured), fmt(m.name, m.normalised), fmt(m.name, m.reference), m.normalised !== null && m.reference ? `x${(m.normalised / m.reference).toFixed(2)}` : '']),
      ]),
    ]),
  ];
  if (n.phases.length > 0) {
    lines.push(
      '',
      'load phases as if on the reference machine, seconds (measured -> normalised):',
      ...table([
        ['run', ...n.phases.map((c) => c.name)],
        ...runs.map((r, i) => [`${i + 1}: ${r.run.label}`, ...r.phases.map((p) => (p.measured === null ? '-' : `${seconds(p.measured)} -> ${seconds(p.normalised!)}`))]),
      ]),
    );
  }
  return lines.join('\n');
}
