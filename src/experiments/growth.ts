import { INT4_BOUND, SECONDS_BOUND } from '../config/limits.js';
import { defineOptions, type OptionValues } from '../config/options.js';
import { UserError } from '../errors.js';
import { parseArgs } from '../config/args.js';
import { CLOSING_OPTIONS, DB_OPTION, JOBS_OPTION, LOAD_FORCE_OPTION, SERVER_SETTINGS_OPTIONS, workloadOptionSpecs } from '../session/options.js';
import { experimentOutOption } from './options.js';
import { logLine } from '../session/session.js';
import { announceReplacement, loadData } from '../session/load-data.js';
import { measuredData } from '../session/data-options.js';
import { checkWeights } from '../engine/deck.js';
import { growthText } from '../reports/growth-text.js';
import type { GrowthRow } from '../result/experiment-rows.js';
import { loadWorkload } from '../workloads/registry.js';
import { memTotalBytes } from './experiment-result.js';
import { tablesBytes } from '../drivers/observation.js';
import { checkClients, checkOpenFiles } from '../session/budget.js';
import { measureStep } from './measure.js';
import { runExperiment } from './runner.js';
import { AGENT_RUN_OPTIONS, agentRunOf } from '../session/agent-options.js';

/** The study's fixed load: 20 terminals (docs/experiments.md section 2). */
export const GROWTH_DEFAULT_CLIENTS = 20;
export const GROWTH_DEFAULT_SECONDS = 30;
const MB = 1048576;

export const GROWTH_OPTIONS = defineOptions([
  DB_OPTION,
  {
    long: 'workload',
    type: 'string',
    value: 'NAME',
    help: 'the workload whose data grows and whose mix runs at each size (tpcc: the TPC-C-like mix the study grew, -s in warehouses)',
    default: 'tpcc',
  },
  {
    long: 'scale',
    short: 's',
    type: 'string',
    value: 'LIST',
    help: "the sizes, comma-separated, in the workload's -s unit (e.g. tpcc warehouses 1,2,4; chain 1/1000,1/100)",
    default: '1,2,4',
  },
  { long: 'clients', short: 'c', type: 'integer', min: 1, value: 'N', help: 'terminals of the fixed load at every size', default: GROWTH_DEFAULT_CLIENTS },
  {
    long: 'time',
    short: 'T',
    type: 'integer',
    min: 1,
    ...SECONDS_BOUND,
    value: 'SECONDS',
    help: 'measured seconds at every size',
    default: GROWTH_DEFAULT_SECONDS,
  },
  JOBS_OPTION,
  // TPC-C's New-Order, Payment and Delivery deadlock and conflict under load: retry them.
  {
    long: 'max-tries',
    type: 'integer',
    min: 1,
    ...INT4_BOUND,
    value: 'N',
    help: 'tries per transaction on serialization failures and deadlocks (1: no retry)',
    default: 10,
  },
  LOAD_FORCE_OPTION,
  ...SERVER_SETTINGS_OPTIONS,
  { long: 'observe', type: 'boolean', help: 'sample the server beside each run (--observe=false: do not)', default: true },
  experimentOutOption('growth'),
  ...AGENT_RUN_OPTIONS,
  ...CLOSING_OPTIONS,
]);

/**
 * `headroom experiment growth`: at each size, drop and load the workload's data (timed), then
 * run the same load for the same time; one table of size against throughput, with the point
 * where the database outgrows the machine's RAM marked.
 */
export async function growthExperiment(argv: readonly string[]): Promise<number> {
  const { values, all, positionals, given } = parseArgs(argv, GROWTH_OPTIONS, 'experiment growth', workloadOptionSpecs());
  if (positionals.length > 0)
    throw new UserError(`"headroom experiment growth" takes no arguments, got: ${positionals.join(' ')}`, 'name the workload with --workload');
  const workload = await loadWorkload(values.workload);
  const own = new Set(workload.options.map((o) => o.long));
  const foreign = [...given].find((name) => !GROWTH_OPTIONS.some((s) => s.long === name) && !own.has(name));
  if (foreign) throw new UserError(`--${foreign} is not an option of workload ${workload.name}`, 'see: headroom list');
  const workloadOptions: OptionValues = {};
  for (const spec of workload.options) workloadOptions[spec.long] = all[spec.long];
  checkWeights(workload.transactions(workloadOptions).map((t) => t.weight));
  const scales = values.scale.split(',').map((text) => workload.parseScale(text.trim()));
  const clients = values.clients;
  if (values.agents === undefined) checkOpenFiles(clients);
  const jobs = values.jobs;
  if (jobs > clients) throw new UserError(`-j ${jobs} is more than -c ${clients}`, 'use -j up to -c');
  const asked = values.agents;
  // Said before the first load, not after it (the coordinator refuses it too).
  if (asked !== undefined && clients < asked)
    throw new UserError(`-c ${clients} is fewer than --agents ${asked}`, 'each agent needs at least one terminal: use -c of at least --agents');
  const agents = await agentRunOf(values, given);

  return runExperiment<GrowthRow>(
    'growth',
    argv,
    values,
    workload,
    workloadOptions,
    async (ctx) => {
      const { session } = ctx;
      await checkClients(session, clients, `-c ${clients}`);
      const base = { conn: session.conn, driver: session.driver, dbms: session.target.dbms, options: workloadOptions, log: logLine };
      const observation = session.driver.observe(session.conn);
      const memory = ctx.serverOnThisMachine ? memTotalBytes() : undefined;
      // The first step drops what is there: said (or refused, when it is larger) before anything starts.
      const force = values['force'] === true;
      announceReplacement({ workload, present: await workload.detectScale(base), scale: scales[0]!, verb: 'experiment growth', force });
      for (const [i, scale] of scales.entries()) {
        if (ctx.signal.aborted) break;
        logLine(`step ${i + 1} of ${scales.length}: loading ${workload.name} at scale ${scale}`);
        // Dropped first so that the load's time is the load's alone (the workloads' load drops too).
        await workload.drop(base);
        const started = performance.now();
        const phases = await loadData({
          session,
          workload,
          options: workloadOptions,
          scale,
          present: undefined,
          verb: 'experiment growth',
          force,
          signal: ctx.signal,
        });
        const loadSeconds = (performance.now() - started) / 1000;
        // What the data is, as headroom run records it: the options the load recorded (a module's: those its load() read), the load mode.
        const data = await measuredData(session, workload, workloadOptions, given, scale, 'this-run', phases);
        const sizes = await observation.sizes(workload.tables);
        const { databaseBytes } = sizes;
        const workloadBytes = tablesBytes(sizes);
        // The workload's tables where the DBMS tells them apart; the database otherwise (said in the table).
        const sizeBytes = workloadBytes ?? databaseBytes;
        logLine(`step ${i + 1}: ${clients} terminal(s), ${values['time']} s`);
        const run = await measureStep(
          {
            ...ctx,
            workload,
            workloadOptions,
            scale,
            clients,
            jobs,
            durationSeconds: values.time,
            maxTries: values['max-tries'],
            observe: values['observe'] === true,
            data,
            argv,
          },
          ctx.signal,
          ctx.hurry,
        );
        ctx.record(
          {
            step: i + 1,
            scale,
            databaseBytes,
            tablesBytes: workloadBytes,
            loadSeconds: Math.round(loadSeconds * 1000) / 1000,
            // The data's size over the load's time, as the study gave load speed. Not the size
            // added: SQLite and Firebird files keep the pages of dropped tables, so a difference would
            // count only what outgrew the last step.
            loadMBps: sizeBytes === null || loadSeconds <= 0 ? null : Math.round((sizeBytes / MB / loadSeconds) * 100) / 100,
            clients,
            measuredSeconds: run.summary.measuredSeconds,
            tps: run.summary.tps,
            p50Ms: run.summary.latencyMs.p50,
            p99Ms: run.summary.latencyMs.p99,
            failed: run.summary.failed,
            clientCpuPercent: run.summary.clientCpu.percentOfOneCore,
            largerThanRam: memory === undefined || sizeBytes === null ? null : sizeBytes > memory,
          },
          run,
        );
        if (run.status === 'failed') break;
      }
    },
    growthText,
    agents,
  );
}
