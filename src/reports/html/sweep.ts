import { kneeLine, refusalLine, sweepHeader, sweepRows } from '../sweep-table.js';
import { describeSweep } from '../sweep-outputs.js';
import type { LoadedSweep } from '../input.js';
import { PALETTE, type ChartMark, type ChartSpec } from './charts.js';
import { escapeHtml as e, htmlTable } from './markup.js';

export const KNEE_COLOR = '#e03131';
export const REFUSED_COLOR = '#5f3dc4';

/**
 * Terminals against tps and against p99, one line per sweep, the knee ringed and the refused step
 * a dashed line. The x axis runs to the refused step, so the line shows where the server stopped.
 */
export function sweepCharts(sweeps: readonly LoadedSweep[]): ChartSpec[] {
  const x = [
    ...new Set(sweeps.flatMap(({ sweep }) => [...sweep.steps.map((s) => s.config.clients), ...(sweep.refusedAt === null ? [] : [sweep.refusedAt])])),
  ].sort((a, b) => a - b);
  // Steps that multiply (1, 2, 4, ...) read better on a log axis, where they are evenly spaced.
  const xLog = x.length >= 3 && x[0]! >= 1 && x.every((v, i) => i === 0 || v / x[i - 1]! >= 1.5);
  const chart = (metric: 'tps' | 'p99'): ChartSpec => {
    const pick = (clients: number, loaded: LoadedSweep): number | null => {
      const step = loaded.sweep.steps.find((s) => s.config.clients === clients);
      if (!step) return null;
      return metric === 'tps' ? step.summary.tps : step.summary.latencyMs.p99 > 0 ? step.summary.latencyMs.p99 : null;
    };
    const marks: ChartMark[] = sweeps.flatMap((loaded) => {
      const { knee, refusedAt } = loaded.sweep;
      const own = sweeps.length > 1 ? ` (${loaded.label})` : '';
      return [
        ...(knee === null ? [] : [{ x: knee, y: pick(knee, loaded), label: `knee${own}`, color: KNEE_COLOR }]),
        ...(refusedAt === null ? [] : [{ x: refusedAt, y: null, label: `refused at ${refusedAt}${own}`, color: REFUSED_COLOR }]),
      ];
    });
    return {
      id: `sweep-${metric}`,
      title: metric === 'tps' ? 'Throughput by terminals (tps)' : 'Latency p99 by terminals (ms, log scale)',
      kind: 'terminals',
      xLog,
      yLabel: metric === 'tps' ? 'tps' : 'ms',
      yLog: metric === 'p99',
      x,
      lines: sweeps.map((loaded, i) => ({ label: loaded.label, color: PALETTE[i % PALETTE.length]!, values: x.map((clients) => pick(clients, loaded)) })),
      shaded: [],
      marks,
    };
  };
  return [chart('tps'), chart('p99')];
}

/** The sweeps: each one's table, knee and refusal, and the curves of all of them. */
export function sweepSection(sweeps: readonly LoadedSweep[], charts: readonly ChartSpec[]): string {
  const parts = ['<section class="sweep" id="sweeps">', `<h2>Terminal sweep${sweeps.length > 1 ? 's' : ''}</h2>`];
  parts.push(`<div class="charts">${charts.map((c) => `<div class="chart" id="${e(c.id)}"></div>`).join('')}</div>`);
  for (const loaded of sweeps) {
    const refused = refusalLine(loaded.sweep);
    parts.push(
      `<h3>${e(loaded.label)} <span class="status status-${e(loaded.sweep.status)}">${e(loaded.sweep.status)}</span></h3>`,
      `<p class="note">${e(describeSweep(loaded))}${loaded.sweep.statusReason ? `; ${e(loaded.sweep.statusReason)}` : ''}</p>`,
      htmlTable(
        sweepHeader(loaded.sweep),
        sweepRows(loaded.sweep).map((row) => row.map(e)),
      ),
      `<p class="note">${e(kneeLine(loaded.sweep))}${refused ? `<br>${e(refused)}` : ''}</p>`,
      `<p class="note">command: <code>headroom run ${e(loaded.sweep.argv.join(' '))}</code></p>`,
    );
  }
  parts.push('</section>');
  return parts.join('\n');
}
