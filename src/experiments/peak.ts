import { SECONDS_BOUND } from '../config/limits.js';
import { defineOptions } from '../config/options.js';
import { UserError } from '../errors.js';
import { parseArgs } from '../config/args.js';
import { CLOSING_OPTIONS, DB_OPTION, LOAD_FORCE_OPTION, SERVER_SETTINGS_OPTIONS } from '../session/options.js';
import { experimentOutOption } from './options.js';
import { logLine } from '../session/session.js';
import { loadData, refuseIncompleteData } from '../session/load-data.js';
import { peakText } from '../reports/peak-text.js';
import type { PeakRow } from '../result/experiment-rows.js';
import { PEAK_JOIN_ROWS_OPTION, peak } from '../workloads/peak/index.js';
import { PEAK_QUERIES, findPeakQuery, type PeakQuery } from '../workloads/peak/queries.js';
import { checkClients, checkOpenFiles } from '../session/budget.js';
import { measureStep, perSecond } from './measure.js';
import { runExperiment } from './runner.js';

/** The study ran each query "for about a minute" (docs/experiments.md section 4). */
export const PEAK_DEFAULT_SECONDS = 60;
/** Client CPU at or above this share of the cores its jobs can use: the client may have set the pace. */
const CLIENT_BOUND_SHARE = 0.9;

export const PEAK_OPTIONS = defineOptions([
  DB_OPTION,
  { long: 'clients', short: 'c', type: 'integer', min: 1, value: 'N', help: "clients for every query (default: the study's, 90, 90, 26, 26, 9, 9, 9)" },
  { long: 'time', short: 'T', type: 'integer', min: 1, ...SECONDS_BOUND, value: 'SECONDS', help: 'measured seconds per query', default: PEAK_DEFAULT_SECONDS },
  { long: 'jobs', short: 'j', type: 'integer', min: 1, value: 'N', help: 'threads the clients are spread over', default: 1 },
  {
    long: 'queries',
    type: 'string',
    value: 'LIST',
    help: `which queries, by number or name, comma-separated (default all: ${PEAK_QUERIES.map((q) => q.name).join(',')})`,
  },
  { long: 'scale', short: 's', type: 'string', value: 'N', help: 'rows of the reference table of query 2 (default 100)' },
  PEAK_JOIN_ROWS_OPTION,
  LOAD_FORCE_OPTION,
  ...SERVER_SETTINGS_OPTIONS,
  { long: 'observe', type: 'boolean', help: 'sample the server beside each query (--observe=false: do not)', default: true },
  experimentOutOption('peak'),
  ...CLOSING_OPTIONS,
]);

/** `headroom experiment peak`: the seven simple queries one after another, one table, one file. */
export async function peakExperiment(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs(argv, PEAK_OPTIONS, 'experiment peak');
  if (positionals.length > 0)
    throw new UserError(`"headroom experiment peak" takes no arguments, got: ${positionals.join(' ')}`, 'see: headroom experiment peak --help');
  const queries = selectQueries(values.queries);
  const clientsOf = (q: PeakQuery): number => values.clients ?? q.clients;
  if (values.clients !== undefined) checkOpenFiles(values.clients);
  const jobs = values.jobs;
  const tooFew = queries.find((q) => clientsOf(q) < jobs);
  if (tooFew)
    throw new UserError(`-j ${jobs} is more than the ${clientsOf(tooFew)} clients of query ${tooFew.number}`, 'use -j up to the smallest client count');
  const seconds = values.time;
  const asked = values.scale === undefined ? undefined : peak.parseScale(values.scale);
  const workloadOptions = { 'join-rows': values['join-rows'] };

  return runExperiment<PeakRow>(
    'peak',
    argv,
    values,
    peak,
    workloadOptions,
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
          ctx.hurry,
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
