import { comparedMetrics, compareRuns, dbmsLabel, formatRatio, formatValue, unlikeRuns } from './comparison.js';
import type { LoadedResult } from './input.js';
import { formatWorkloadMetric } from './workload-metrics.js';
import { figureName, formatFigure, formatSeconds, formatVsReference, type NormalisedComparison } from './normalise.js';
import { whatWasNormalised } from './normalise-text.js';
import { optionsAsFlags } from './module-text.js';
import { agentsHeadline } from './agents-text.js';

/** A summary table to paste into an issue: one row per run, ratios to the first when several. */
export function markdownSummary(runs: readonly LoadedResult[]): string {
  const metrics = comparedMetrics(runs);
  const cells = compareRuns(runs, metrics);
  // Steps of an experiment are not compared with one another: its own table says what they show.
  const several = runs.length > 1 && !runs.some((r) => r.experimentStep);
  const header = ['run', 'workload', 'DBMS', 'clients', 'seconds', 'status', ...metrics.map((m) => `${m.name}${m.unit ? ` ${m.unit}` : ''}`)];
  const rows = runs.map((run, i) => {
    const r = run.result;
    return [
      code(run.label),
      r.config.workload,
      dbmsLabel(run),
      String(r.config.clients),
      r.summary.measuredSeconds.toFixed(1),
      r.status,
      ...metrics.map((m, j) => {
        const cell = cells[i]![j]!;
        const ratio = several && cell.ratio !== null ? ` (${formatRatio(cell.ratio)})` : '';
        return `${formatValue(m, cell.value)}${ratio}`;
      }),
    ];
  });
  const right = (i: number): boolean => i === 3 || i === 4 || i >= 6;
  const lines = [row(header), row(header.map((_, i) => (right(i) ? '---:' : '---'))), ...rows.map(row)];
  if (several) lines.push('', `Ratios (xN) are each run's figure over the first run's (${runs[0]!.label}).`, ...unlikeRuns(runs).map((line) => `**${line}**`));
  // The workload's own headline figures (tpcc: NOPM, TPM) and its checks after the run, where it has them.
  for (const run of runs) {
    const metrics = (run.result.summary.workloadMetrics ?? []).map((m) => `${m.name} ${formatWorkloadMetric(m)}`);
    const failed = (run.result.checks ?? []).filter((c) => !c.ok).map((c) => c.name);
    const checks = run.result.checks ? [failed.length === 0 ? `checks: all ${run.result.checks.length} ok` : `checks FAILED: ${failed.join(', ')}`] : [];
    // Which module version and data, and which agents ran the terminals: what the figures are of.
    const module = run.result.config.module ? [`module ${code(run.result.config.module.path)} sha256 ${code(run.result.config.module.sha256)}`] : [];
    const data = run.result.data.options ? [`data loaded with ${code(optionsAsFlags(run.result.data.options) || 'no options')}`] : [];
    const agents = run.result.agents ? [agentsHeadline(run.result.agents)] : [];
    const notes = [...metrics, ...checks, ...module, ...data, ...agents];
    if (notes.length > 0) lines.push('', `${code(run.label)}: ${notes.join('; ')}`);
  }
  const hosts = [...new Set(runs.map((r) => `${r.result.host.cpuModel}, ${r.result.host.cores} cores, ${r.result.host.os}`))];
  lines.push('', `Client machine${hosts.length > 1 ? 's' : ''}: ${hosts.join('; ')}. Latencies in ms; CPU/txn is the client's CPU per transaction.`);
  return `${lines.join('\n')}\n`;
}

/** `--normalise`: the coefficients and each run as if on the reference machine, as `compare` prints them. */
export function normaliseMarkdown(c: NormalisedComparison): string {
  const { n, runs } = c;
  const table = (header: readonly string[], rows: readonly (readonly string[])[], textColumns = 1): string[] => [
    row(header),
    row(header.map((_, i) => (i < textColumns ? '---' : '---:'))),
    ...rows.map(row),
  ];
  const lines = [
    ...whatWasNormalised(c).map(([what, line]) => `${what[0]!.toUpperCase()}${what.slice(1)}: ${line}.`),
    '',
    ...table(
      ['figure', 'reference', 'yours', 'coefficient'],
      [
        ...n.metrics.map((m) => [figureName(m.name), formatFigure(m.name, m.reference), formatFigure(m.name, m.yours), `x${m.factor.toFixed(3)}`]),
        ...n.phases.map((p) => [`load: ${p.name} s`, formatSeconds(p.reference), formatSeconds(p.yours), `x${p.factor.toFixed(3)}`]),
      ],
    ),
    '',
    ...table(
      ['run', 'DBMS', ...n.metrics.flatMap((m) => [figureName(m.name), 'normalised', 'reference', 'vs ref'])],
      runs.map((r) => [
        code(r.run.label),
        dbmsLabel(r.run),
        ...r.metrics.flatMap((m) => [
          formatFigure(m.name, m.measured),
          formatFigure(m.name, m.normalised),
          formatFigure(m.name, m.reference),
          formatVsReference(m),
        ]),
      ]),
      2,
    ),
  ];
  if (n.phases.length > 0) {
    lines.push(
      '',
      ...table(
        ['run', ...n.phases.map((p) => `${p.name} s`)],
        runs.map((r) => [
          code(r.run.label),
          ...r.phases.map((p) => (p.measured === null ? '-' : `${formatSeconds(p.measured)} -> ${formatSeconds(p.normalised!)}`)),
        ]),
      ),
    );
  }
  lines.push(
    '',
    "Coefficient = reference / yours; normalised = measured x coefficient, the figure as if on the reference machine; vs ref = normalised / the reference figure for the run's DBMS; load phases in seconds, measured -> normalised.",
  );
  lines.push(...n.notes.map((note) => `Note: ${note}.`));
  return `${lines.join('\n')}\n`;
}

function row(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}
