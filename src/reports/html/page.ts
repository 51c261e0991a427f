import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { TOOL_VERSION } from '../../result/build.js';
import type { LoadedExperiment, LoadedResult, LoadedSweep } from '../input.js';
import { experimentCharts, experimentSection } from './experiment.js';
import { overlayCharts, runCharts } from './charts.js';
import { CLIENT_SCRIPT } from './client.js';
import { escapeHtml, scriptJson } from './markup.js';
import { comparisonSection, runSection } from './sections.js';
import { normaliseCharts, normaliseSection } from './normalise.js';
import type { NormalisedComparison } from '../normalise.js';
import { STYLE } from './style.js';
import { sweepCharts, sweepSection } from './sweep.js';

const require = createRequire(import.meta.url);

/**
 * uPlot, inlined so the page opens offline and requests nothing: 50 kB minified, draws on canvas,
 * and copes with the thousands of points a long run's series and HDR curves give.
 */
function uplotAssets(): { script: string; style: string } {
  const read = (file: string): string => readFileSync(require.resolve(`uplot/${file}`), 'utf8');
  // The MIT licence asks for its notice to travel with every copy, and each report is one.
  const license = `/*! uPlot licence:\n${read('LICENSE').replace(/\*\//g, '* /')}*/\n`;
  return { script: `${license}${read('dist/uPlot.iife.min.js')}`.replace(/<\/script/gi, '<\\/script'), style: read('dist/uPlot.min.css') };
}

/** The whole report as one self-contained HTML file: tables as markup, charts drawn by uPlot. */
export function renderHtmlReport(
  runs: readonly LoadedResult[],
  sweeps: readonly LoadedSweep[] = [],
  normalised?: NormalisedComparison,
  generatedAt: Date = new Date(),
  experiments: readonly LoadedExperiment[] = [],
): string {
  const perRun = runs.map((run, i) => runCharts(run, i));
  // Runs side by side are the runs given as such; an experiment's steps have the experiment's own table.
  const compared = runs.filter((run) => !run.experimentStep);
  const ownCharts = experiments.map((loaded, i) => experimentCharts(loaded, i));
  const bars = normalised ? normaliseCharts(normalised) : [];
  const overlays = compared.length > 1 ? overlayCharts(compared) : [];
  const curves = sweeps.length > 0 ? sweepCharts(sweeps) : [];
  const title = pageTitle(runs, sweeps);
  const uplot = uplotAssets();
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing may leave the page: a report opened from a mail or an archive must not phone home.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${uplot.style}${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<div class="generated">headroom ${escapeHtml(TOOL_VERSION)} report, generated ${escapeHtml(generatedAt.toISOString())} from ${[...sweeps, ...runs].map((r) => `<code>${escapeHtml(r.file)}</code>`).join(', ')}</div>`,
    sweeps.length > 0 ? sweepSection(sweeps, curves) : '',
    ...experiments.map((loaded, i) => experimentSection(loaded, ownCharts[i]!)),
    compared.length > 1 ? comparisonSection(compared, overlays) : '',
    normalised ? normaliseSection(normalised, bars) : '',
    ...runs.map((run, i) => runSection(run, i, perRun[i]!)),
    `<script type="application/json" id="headroom-data">${scriptJson({ charts: [...curves, ...ownCharts.flat(), ...overlays, ...bars, ...perRun.flat()] })}</script>`,
    `<script>${uplot.script}</script>`,
    `<script>${CLIENT_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function pageTitle(runs: readonly LoadedResult[], sweeps: readonly LoadedSweep[]): string {
  const all = [...sweeps, ...runs];
  if (all.length === 1) return `headroom: ${all[0]!.label}${sweeps.length === 1 ? ' (terminal sweep)' : ''}`;
  const counted = [
    ...(sweeps.length > 0 ? [`${sweeps.length} sweep${sweeps.length > 1 ? 's' : ''}`] : []),
    ...(runs.length > 0 ? [`${runs.length} run${runs.length > 1 ? 's' : ''}`] : []),
  ];
  return `headroom: ${counted.join(' and ')} compared`;
}
