import { dbmsLabel } from './comparison.js';
import { figureName, formatFigure as fmt, formatSeconds as seconds, formatVsReference, type NormalisedComparison } from './normalise.js';
import { table } from './table.js';

/**
 * `headroom compare --normalise REFERENCE:YOURS RUN...`: the coefficients, then each run (your run
 * of the reference first) as measured and as if on the reference machine, beside the reference's
 * figure for the run's DBMS.
 */
export function normaliseText({ n, runs }: NormalisedComparison): string {
  const lines = [
    ...whatWasNormalised({ n, runs }).map(([what, line]) => `${what}: ${line}`),
    '',
    'coefficient = reference / yours; a figure of this machine x coefficient = the figure as if on the reference machine',
    ...table([
      ['figure', 'reference', 'yours', 'coefficient'],
      ...n.metrics.map((c) => [figureName(c.name), fmt(c.name, c.reference), fmt(c.name, c.yours), `x${c.factor.toFixed(3)}`]),
      ...n.phases.map((c) => [`load: ${c.name} s`, seconds(c.reference), seconds(c.yours), `x${c.factor.toFixed(3)}`]),
    ]),
    ...n.notes.map((note) => `note: ${note}`),
    '',
    'as if on the reference machine (vs ref: normalised / the reference figure for that DBMS):',
    ...table([
      ['run', 'DBMS', ...n.metrics.flatMap((c) => [figureName(c.name), 'normalised', 'reference', 'vs ref'])],
      ...runs.map((r, i) => [
        `${i + 1}: ${r.run.label}`,
        dbmsLabel(r.run),
        ...r.metrics.flatMap((m) => [fmt(m.name, m.measured), fmt(m.name, m.normalised), fmt(m.name, m.reference), formatVsReference(m)]),
      ]),
    ]),
  ];
  if (n.phases.length > 0) {
    lines.push(
      '',
      'load phases as if on the reference machine, seconds (measured -> normalised):',
      ...table([
        ['run', ...n.phases.map((c) => c.name)],
        ...runs.map((r, i) => [
          `${i + 1}: ${r.run.label}`,
          ...r.phases.map((p) => (p.measured === null ? '-' : `${seconds(p.measured)} -> ${seconds(p.normalised!)}`)),
        ]),
      ]),
    );
  }
  return lines.join('\n');
}

/** The reference and your run of it, a line each, as the text, HTML and Markdown outputs head them. */
export function whatWasNormalised({ n, runs }: NormalisedComparison): [string, string][] {
  const yours = runs[0]!.run;
  return [
    [
      'reference',
      `${n.reference.label}: ${n.reference.workload} on ${n.reference.version}${n.reference.clients === null ? '' : `, ${n.reference.clients} clients`} (${n.reference.describe})`,
    ],
    ['your run of it', `${yours.label}: ${n.yours.workload} on ${dbmsLabel(yours)}, ${n.yours.clients} clients (${n.yours.describe})`],
  ];
}
