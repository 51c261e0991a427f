import type { OptionSpec } from '../config/options.js';
import { UserError } from '../errors.js';
import { parseArgs } from '../config/args.js';
import { ACCEPT_DATA_LOSS_OPTION, DB_OPTION, HELP_OPTION, SET_OPTION, VERBOSE_OPTION } from '../session/options.js';
import { logLine } from '../session/session.js';
import { loadData, refuseIncompleteData } from '../session/load-data.js';
import { table } from '../reports/text.js';
import { settingsLine } from '../reports/settings-text.js';
import { peak } from '../workloads/peak/index.js';
import { PEAK_QUERIES, findPeakQuery, type PeakQuery } from '../workloads/peak/queries.js';
import type { ExperimentResult } from './experiment-result.js';
import { checkClients, measureStep, perSecond } from './measure.js';
import { runExperiment } from './runner.js';

/** The study ran each query "for about a minute" (docs/experiments.md section 4). */
export const PEAK_DEFAULT_SECONDS = 60;
/** Client CPU at or above this share of the cores its jobs can use: the client may have set the pace. */
const CLIENT_BOUND_SHARE = 0.9;

export interface PeakRow {
  number: number;
  query: string;
  title: string;
  clients: number;
  measuredSeconds: number;
  queries: number;
  failed: number;
  peakQps: number;
  meanQps: number;
  p50Ms: number;
  p99Ms: number;
  clientCpuPercent: number;
  /** Client CPU near the cores its jobs could use (one per job): the client, not the DBMS, may have been the limit. */
  clientBound: boolean;
}

export const PEAK_OPTIONS: OptionSpec[] = [
  DB_OPTION,
  { long: 'clients', short: 'c', type: 'integer', min: 1, value: 'N', help: "clients for every query (default: the study's, 90, 90, 26, 26, 9, 9, 9)" },
  { long: 'time', short: 'T', type: 'integer', min: 1, value: 'SECONDS', help: 'measured seconds per query', default: PEAK_DEFAULT_SECONDS },
  { long: 'jobs', short: 'j', type: 'integer', min: 1, value: 'N', help: 'threads the clients are spread over', default: 1 },
  {
    long: 'queries',
    type: 'string',
    value: 'LIST',
    help: `which queries, by number or name, comma-separated (default all: ${PEAK_QUERIES.map((q) => q.name).join(',')})`,
  },
  { long: 'scale', short: 's', type: 'string', value: 'N', help: 'rows of the reference table of query 2 (default 100)' },
  ...peak.options.filter((o) => o.long === 'join-rows'),
  { long: 'force', type: 'boolean', help: 'drop data of a larger scale to load a smaller one (refused without it)' },
  SET_OPTION,
  ACCEPT_DATA_LOSS_OPTION,
  { long: 'observe', type: 'boolean', help: 'sample the server beside each query (--observe=false: do not)', default: true },
  { long: 'out', short: 'o', type: 'string', value: 'FILE', help: 'experiment file (default headroom-results/peak-DBMS-TIME.json)' },
  VERBOSE_OPTION,
  HELP_OPTION,
];

/** `headroom experiment peak`: the seven simple queries one after another, one table, one file. */
export async function peakExperiment(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs(argv, PEAK_OPTIONS, 'experiment peak');
  if (positionals.length > 0)
    throw new UserError(`"headroom experiment peak" takes no arguments, got: ${positionals.join(' ')}`, 'see: headroom experiment peak --help');
  const queries = selectQueries(values['queries'] as string | undefined);
  const clientsOf = (q: PeakQuery): number => (values['clients'] as number | undefined) ?? q.clients;
  const jobs = values['jobs'] as number;
  const tooFew = queries.find((q) => clientsOf(q) < jobs);
  if (tooFew)
    throw new UserError(`-j ${jobs} is more than the ${clientsOf(tooFew)} clients of query ${tooFew.number}`, 'use -j up to the smallest client count');
  const seconds = values['time'] as number;
  const asked = values['scale'] === undefined ? undefined : peak.parseScale(values['scale'] as string);
  const workloadOptions = { 'join-rows': values['join-rows'] as number };

  return runExperiment<PeakRow>(
    'peak',
    argv,
    values,
    peak,
    async (ctx) => {
      const { session } = ctx;
      await checkClients(
        session,
        Math.max(...queries.map(clientsOf)),
        `query ${queries.reduce((a, q) => (clientsOf(q) > clientsOf(a) ? q : a)).number} of the experiment`,
      );
      const present = await peak.detectScale({ conn: session.conn, driver: session.driver, dbms: session.target.dbms, options: workloadOptions, log: logLine });
      const scale = asked ?? present ?? peak.defaultScale;
      if (present === scale) await refuseIncompleteData(session, peak, workloadOptions, scale);
      const force = values['force'] === true;
      const phases =
        present === scale
          ? []
          : await loadData({ session, workload: peak, options: workloadOptions, scale, present, verb: 'experiment peak', force, signal: ctx.signal });
      for (const query of queries) {
        if (ctx.signal.aborted) break;
        const clients = clientsOf(query);
        logLine(`query ${query.number} (${query.name}): ${clients} client(s), ${seconds} s`);
        const run = await measureStep(
          {
            ...ctx,
            workload: peak,
            workloadOptions: { ...workloadOptions, query: query.name },
            scale,
            clients,
            jobs,
            durationSeconds: seconds,
            observe: values['observe'] === true,
            data: { loadedBy: phases.length > 0 ? 'this-run' : 'earlier', phases },
            argv,
          },
          ctx.signal,
        );
        const { peak: peakQps, mean } = perSecond(run);
        const cpu = run.summary.clientCpu.percentOfOneCore;
        ctx.record(
          {
            number: query.number,
            query: query.name,
            title: query.title,
            clients,
            measuredSeconds: run.summary.measuredSeconds,
            queries: run.summary.transactions,
            failed: run.summary.failed,
            peakQps,
            meanQps: mean,
            p50Ms: run.summary.latencyMs.p50,
            p99Ms: run.summary.latencyMs.p99,
            clientCpuPercent: cpu,
            clientBound: cpu >= CLIENT_BOUND_SHARE * 100 * Math.min(jobs, run.host.cores),
          },
          run,
        );
        if (run.status === 'failed') break;
      }
    },
    peakText,
  );
}

function selectQueries(text: string | undefined): PeakQuery[] {
  if (text === undefined) return [...PEAK_QUERIES];
  return text.split(',').map((part) => {
    const query = findPeakQuery(part.trim());
    if (!query) throw new UserError(`--queries: unknown query "${part}"`, `use numbers 1-7 or names: ${PEAK_QUERIES.map((q) => q.name).join(', ')}`);
    return query;
  });
}

/** The study's table: query, clients, peak queries/s; then the mean, latency and the client's own CPU. */
export function peakText(result: ExperimentResult<PeakRow>, file: string): string {
  const header = ['# query', 'clients', 'peak q/s', 'mean q/s', 'p50 ms', 'p99 ms', 'client CPU %', 'failed'];
  const rows = result.rows.map((r) => [
    `${r.number} ${r.title}`,
    String(r.clients),
    r.peakQps.toFixed(0),
    r.meanQps.toFixed(0),
    r.p50Ms.toFixed(3),
    r.p99Ms.toFixed(3),
    `${r.clientCpuPercent.toFixed(0)}${r.clientBound ? ' *' : ''}`,
    String(r.failed),
  ]);
  const lines = [`peak queries/s on ${result.target.version.split(/ \(| on |,/)[0]} (${result.target.url}), ${result.status}`, '', ...table([header, ...rows])];
  if (result.rows.some((r) => r.clientBound))
    lines.push(
      '',
      '* the client used nearly all the CPU its jobs can (one core per job): it, not the DBMS, may have set the pace; raise -j or run the client on another machine',
    );
  // Embedded SQLite executes inside the client's process: its CPU is counted as the client's.
  if (result.target.dbms === 'sqlite') lines.push("SQLite runs inside the client process: client CPU includes the database engine's");
  const set = settingsLine(result.serverSettings);
  if (set) lines.push(set);
  if (!result.target.durable) lines.push(`non-durable settings: ${result.target.durabilityRisks.join(', ')}`);
  lines.push(`peak: the best 1-second window; mean: over the whole measured time. result: ${file}`);
  return lines.join('\n');
}
