import { ERROR_CLASSES } from '../../drivers/errors.js';
import { comparedMetrics, compareRuns, dbmsLabel, describeRun, formatRatio, formatValue, unlikeRuns } from '../comparison.js';
import type { LoadedResult } from '../input.js';
import type { ChartSpec } from './charts.js';
import { formatWorkloadMetric } from '../workload-metrics.js';
import { escapeHtml as e, facts, htmlTable } from './markup.js';
import { serverLines } from '../server-text.js';
import { statementDifferenceLines } from '../statement-difference.js';
import { agentsComparisonLines } from '../agents-text.js';
import { moduleComparisonLines, optionsAsFlags } from '../module-text.js';
import { agentsSection } from './agents.js';
import { replaySection } from './replay.js';
import { schedulingText, type ClientScheduling } from '../../engine/scheduling.js';
import { runQueueText } from '../run-queue-text.js';
import type { RunResult } from '../../result/result.js';

const ms = (v: number): string => v.toFixed(3);

/** One run: what ran where, the headline numbers, its charts and every table the result holds. */
export function runSection(run: LoadedResult, index: number, charts: readonly ChartSpec[]): string {
  const r = run.result;
  const s = r.summary;
  const c = r.config;
  const options = Object.entries(c.workloadOptions)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(' ') : String(v)}`)
    .join('; ');
  const failures = ERROR_CLASSES.filter((k) => s.failures[k] > 0)
    .map((k) => `${k} ${s.failures[k]}`)
    .join(', ');
  // A column of its own only where the workload rolls back by design (tpcc New-Order 1%).
  const rolledBack = r.transactions.some((t) => (t.rolledBack ?? 0) > 0);
  const parts = [
    `<section class="run" id="run${index}">`,
    `<h2>${e(run.label)} <span class="status status-${e(r.status)}">${e(r.status)}</span></h2>`,
    r.statusReason ? `<p class="reason">${e(r.statusReason)}</p>` : '',
    facts([
      ['workload', e(`${c.workload}${options ? ` (${options})` : ''}`)],
      ...(c.module ? [['module', `<code>${e(c.module.path)}</code> sha256 <code>${e(c.module.sha256)}</code>`] as [string, string]] : []),
      ...(r.data.options
        ? [
            [
              'data loaded with',
              e(`${optionsAsFlags(r.data.options) || 'no options read by the loader'} (${r.data.loadedBy === 'this-run' ? 'by this run' : 'earlier'})`),
            ] as [string, string],
          ]
        : []),
      ...(c.statements ? [['statements sent', e(`${c.statements.style} (${c.statements.description})`)] as [string, string]] : []),
      ['DBMS', e(dbmsLabel(run))],
      ['server version', e(r.target.version)],
      ['target', e(r.target.url)],
      ['clients / jobs', `${c.clients} / ${c.jobs}`],
      [
        'duration',
        e(
          `${s.measuredSeconds.toFixed(1)} s measured${c.warmupSeconds > 0 ? `, ${c.warmupSeconds} s warm-up excluded` : ''}${c.rate !== null ? `, rate ${c.rate} tps` : ''}`,
        ),
      ],
      ['started', e(r.startedAt)],
    ]),
    `<div class="headline">`,
    figure('tps', s.tps.toFixed(1)),
    // The workload's own headline figures (tpcc: NOPM and TPM) beside tps.
    ...(s.workloadMetrics ?? []).map((m) => figure(m.name, formatWorkloadMetric(m))),
    figure('transactions', String(s.transactions)),
    figure('failed', `${s.failed}${failures ? ` (${e(failures)})` : ''}`),
    figure('p50 ms', ms(s.latencyMs.p50)),
    figure('p99 ms', ms(s.latencyMs.p99)),
    figure('client CPU / txn', s.clientCpu.usPerTransaction === null ? '-' : `${s.clientCpu.usPerTransaction.toFixed(1)} us`),
    `</div>`,
    htmlTable(
      ['latency ms', 'avg', 'stddev', 'p50', 'p95', 'p99', 'p99.9', 'max'],
      [['all', ...[s.latencyMs.avg, s.latencyMs.stddev, s.latencyMs.p50, s.latencyMs.p95, s.latencyMs.p99, s.latencyMs.p99_9, s.latencyMs.max].map(ms)]],
    ),
    `<p class="note">client CPU ${s.clientCpu.percentOfOneCore.toFixed(1)}% of one core${scheduledText(s.clientCpu.scheduling)}${queuedText(s)}; event-loop delay p99 ${ms(s.eventLoopDelayMs.p99)} ms, max ${ms(s.eventLoopDelayMs.max)} ms` +
      (s.clientMemory ? `; client peak memory ${s.clientMemory.peakRssMB.toFixed(0)} MB` : '') +
      (s.scheduleLagMs
        ? `; schedule lag avg ${ms(s.scheduleLagMs.avg)} ms` +
          (s.scheduleLagMs.p50 === undefined ? '' : `, p50 ${ms(s.scheduleLagMs.p50)} ms, p99 ${ms(s.scheduleLagMs.p99 ?? 0)} ms`) +
          `, max ${ms(s.scheduleLagMs.max)} ms` +
          (s.scheduleLagMs.timer ? ` (paced by ${s.scheduleLagMs.timer === 'reactor' ? "the native reactor's timer" : "Node's timers"})` : '')
        : '') +
      s.connections.outages
        .map((o) => `; outage at ${e(o.startedAt)}: ${o.seconds.toFixed(1)} s, ${o.terminals} connection(s) lost${o.recovered ? '' : ', not recovered'}`)
        .join('') +
      (s.connections.refused > 0 ? `; the server refused ${s.connections.refused} of ${r.config.clients} connections` : '') +
      (r.series.some((p) => p.phase === 'warmup') ? '; the shaded part of the time charts is the warm-up' : '') +
      '</p>',
    chartDivs(charts),
    '<h3>Transaction types</h3>',
    htmlTable(
      ['name', 'count', 'tps', 'avg ms', 'p50 ms', 'p95 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'failed', 'retried', ...(rolledBack ? ['rolled back'] : [])],
      r.transactions.map((t) => [
        e(t.name),
        String(t.count),
        t.tps.toFixed(1),
        ...[t.latencyMs.avg, t.latencyMs.p50, t.latencyMs.p95, t.latencyMs.p99, t.latencyMs.p99_9, t.latencyMs.max].map(ms),
        String(t.failed),
        String(t.retried),
        ...(rolledBack ? [String(t.rolledBack ?? 0)] : []),
      ]),
    ),
  ];
  if (r.replay) parts.push(replaySection(r));
  if (r.agents) parts.push(agentsSection(r.agents));
  if (r.checks) {
    parts.push(
      '<h3>Checks after the run</h3>',
      htmlTable(
        ['check', 'result', 'detail'],
        r.checks.map((c) => [e(c.name), c.ok ? 'ok' : 'FAILED', e(c.detail)]),
        { textColumns: 3 },
      ),
    );
  }
  // The same lines the terminal summary prints: where the time went, on the client and the server.
  parts.push(
    '<h3>Where the time went</h3>',
    `<ul class="server">${serverLines(r, r.host.cores)
      .map((line) => `<li>${e(line)}</li>`)
      .join('')}</ul>`,
  );
  if (r.errors.length > 0) {
    parts.push(
      '<h3>Errors</h3>',
      htmlTable(
        ['class', 'code', 'count', 'message'],
        r.errors.map((x) => [e(x.errorClass), e(x.code ?? ''), String(x.count), e(x.message)]),
        { textColumns: 2 },
      ),
    );
  }
  if (r.data.phases.length > 0) {
    parts.push(
      '<h3>Data load</h3>',
      htmlTable(
        ['phase', 'rows', 'seconds', 'rows/s'],
        r.data.phases.map((p) => [e(p.name), String(p.rows), p.seconds.toFixed(3), p.rows > 0 && p.seconds > 0 ? (p.rows / p.seconds).toFixed(0) : '']),
      ),
    );
  } else {
    const loaded =
      r.data.loadedBy === 'none'
        ? "the scripts' own tables, not loaded by headroom"
        : r.data.loadedBy === 'earlier'
          ? 'loaded before this run'
          : 'loaded by this run';
    parts.push(`<p class="note">data: ${loaded}, scale ${c.scale}</p>`);
  }
  parts.push(
    '<div class="columns">',
    '<div><h3>Client machine</h3>',
    facts([
      ['host', e(r.host.hostname)],
      ['CPU', e(`${r.host.cpuModel}, ${r.host.cores} cores`)],
      ['memory', `${(r.host.memoryBytes / 2 ** 30).toFixed(1)} GiB`],
      ['OS', e(r.host.os)],
      ['Node.js', e(r.host.node)],
      ['headroom', e(r.tool.version)],
    ]),
    '</div>',
    '<div><h3>Server settings</h3>',
    htmlTable(
      ['setting', 'value'],
      Object.entries(r.target.settings).map(([k, v]) => [e(k), e(v)]),
      { textColumns: 2 },
    ),
    '</div>',
    '</div>',
    `<p class="note">command: <code>${e(['headroom', c.verb ?? 'run', ...c.argv].join(' '))}</code>; seed ${c.seed}; scale ${c.scale}; max tries ${c.maxTries}</p>`,
    '</section>',
  );
  return parts.join('\n');
}

/** Several runs side by side, each figure with its ratio to the first run. */
export function comparisonSection(runs: readonly LoadedResult[], charts: readonly ChartSpec[]): string {
  const metrics = comparedMetrics(runs);
  const cells = compareRuns(runs, metrics);
  const rows = runs.map((run, i) => [
    `<a href="#run${i}">${e(run.label)}</a><div class="sub">${e(describeRun(run))}</div>`,
    ...metrics.flatMap((m, j) => {
      const cell = cells[i]![j]!;
      const better = cell.ratio === null ? '' : cell.ratio === 1 ? '' : cell.ratio > 1 === m.higherIsBetter ? 'better' : 'worse';
      return [formatValue(m, cell.value), `<span class="ratio ${better}">${formatRatio(cell.ratio)}</span>`];
    }),
  ]);
  const header = ['run', ...metrics.flatMap((m) => [`${m.name}${m.unit ? ` ${m.unit}` : ''}`, 'vs first'])];
  const statements = [...moduleComparisonLines(runs), ...agentsComparisonLines(runs), ...statementDifferenceLines(runs)];
  const named = statements.length > 0 ? `<ul class="server">${statements.map((l) => `<li>${e(l.trim())}</li>`).join('')}</ul>` : '';
  return [
    '<section class="compare">',
    '<h2>Comparison</h2>',
    ...unlikeRuns(runs).map((line) => `<p class="warning">${e(line)}</p>`),
    htmlTable(header, rows),
    named,
    '<p class="note">"vs first" is each run\'s figure over the first run\'s: green is better, red is worse.</p>',
    chartDivs(charts),
    '</section>',
  ].join('\n');
}

function figure(name: string, value: string): string {
  return `<div class="figure"><div class="value">${value}</div><div class="name">${e(name)}</div></div>`;
}

function chartDivs(charts: readonly ChartSpec[]): string {
  return `<div class="charts">${charts.map((c) => `<div class="chart" id="${e(c.id)}"></div>`).join('')}</div>`;
}

/** The job threads' wait for a CPU, escaped for the note; empty where the result does not hold it. */
function queuedText(summary: RunResult['summary']): string {
  const text = runQueueText(summary);
  return text ? `; ${e(text)}` : '';
}

/** " (scheduled SCHED_BATCH)" where the client ran under a policy or nice value other than the default. */
function scheduledText(scheduling: ClientScheduling | undefined): string {
  const text = schedulingText(scheduling);
  return text === undefined ? '' : ` (scheduled ${e(text)})`;
}
