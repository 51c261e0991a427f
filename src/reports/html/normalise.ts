import { dbmsLabel } from '../comparison.js';
import { figureName, formatFigure, formatSeconds, formatVsReference, type NormalisedComparison } from '../normalise.js';
import { whatWasNormalised } from '../normalise-text.js';
import { PALETTE, type ChartSpec } from './charts.js';
import { escapeHtml as e, facts, htmlTable } from './markup.js';

export const REFERENCE_COLOR = '#495057';

/**
 * Normalised tps per run as bars, with the reference's tps for the run's DBMS as a dot on each
 * bar: how far each run is from the published figure, once on the reference machine.
 */
export function normaliseCharts({ runs }: NormalisedComparison): ChartSpec[] {
  const tps = runs.map((r) => r.metrics.find((m) => m.name === 'tps'));
  if (tps.every((m) => m?.normalised == null)) return [];
  return [
    {
      id: 'normalised-tps',
      title: 'Normalised tps per run (bars) and the reference for its DBMS (dots)',
      kind: 'bars',
      categories: runs.map((r) => r.run.label),
      yLabel: 'tps',
      yLog: false,
      x: runs.map((_, i) => i),
      lines: [
        { label: 'normalised tps', color: PALETTE[0]!, values: tps.map((m) => m?.normalised ?? null) },
        ...(tps.some((m) => m?.reference != null) ? [{ label: 'reference tps', color: REFERENCE_COLOR, values: tps.map((m) => m?.reference ?? null) }] : []),
      ],
      shaded: [],
    },
  ];
}

/** The coefficients and each run measured, normalised, and beside the reference's figure for its DBMS. */
export function normaliseSection(c: NormalisedComparison, charts: readonly ChartSpec[]): string {
  const { n, runs } = c;
  const parts = [
    '<section class="normalised" id="normalised">',
    '<h2>Normalised comparison</h2>',
    facts(whatWasNormalised(c).map(([what, line]) => [what, e(line)])),
    '<h3>Coefficients</h3>',
    htmlTable(
      ['figure', 'reference', 'yours', 'coefficient'],
      [
        ...n.metrics.map((m) => [e(figureName(m.name)), formatFigure(m.name, m.reference), formatFigure(m.name, m.yours), `x${m.factor.toFixed(3)}`]),
        ...n.phases.map((p) => [`load: ${e(p.name)} s`, formatSeconds(p.reference), formatSeconds(p.yours), `x${p.factor.toFixed(3)}`]),
      ],
    ),
    '<p class="note">coefficient = reference / yours; a figure of this machine x coefficient = the figure as if measured on the reference machine.</p>',
    ...(n.notes.length > 0 ? [`<ul class="notes">${n.notes.map((note) => `<li>note: ${e(note)}</li>`).join('')}</ul>`] : []),
    '<h3>As if on the reference machine</h3>',
    htmlTable(
      ['run', 'DBMS', ...n.metrics.flatMap((m) => [figureName(m.name), 'normalised', 'reference', 'vs ref'])],
      runs.map((r) => [
        e(r.run.label),
        e(dbmsLabel(r.run)),
        ...r.metrics.flatMap((m) => [
          formatFigure(m.name, m.measured),
          formatFigure(m.name, m.normalised),
          formatFigure(m.name, m.reference),
          formatVsReference(m),
        ]),
      ]),
      { textColumns: 2 },
    ),
    '<p class="note">normalised = measured x coefficient; reference: the reference\'s figure for the run\'s DBMS, when it has one; vs ref = normalised / reference.</p>',
  ];
  if (n.phases.length > 0) {
    parts.push(
      '<h3>Load phases as if on the reference machine</h3>',
      htmlTable(
        ['run', ...n.phases.map((p) => `${p.name} s`)],
        runs.map((r) => [
          e(r.run.label),
          ...r.phases.map((p) => (p.measured === null ? '-' : `${formatSeconds(p.measured)} &rarr; ${formatSeconds(p.normalised!)}`)),
        ]),
      ),
      '<p class="note">seconds, measured &rarr; normalised.</p>',
    );
  }
  parts.push(`<div class="charts">${charts.map((chart) => `<div class="chart" id="${e(chart.id)}"></div>`).join('')}</div>`, '</section>');
  return parts.join('\n');
}
