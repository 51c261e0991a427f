import type { SeriesPoint } from '../engine/measurements.js';
import { TOOL_VERSION } from '../result/build.js';
import { TABLE } from '../workloads/kv/schema.js';
import { EXPERIMENT_SCHEMA, type ExperimentResult, type ExperimentStep } from './experiment.js';
import { maintenanceFor } from './maintenance.js';
import { measureRun, type StepServer } from './measure.js';
import { holdAutovacuum } from './autovacuum.js';
import { tableSizes } from './table-sizes.js';

const SETTLE_MS = 1000;

export interface DeadRowsConfig {
  rows: number;
  clients: number;
  jobs: number;
  durationSeconds: number;
  maxTries: number;
  seed: number;
  argv: string[];
}

export interface ExperimentHooks {
  signal: AbortSignal;
  log(message: string): void;
  onInterval(point: SeriesPoint): void;
}

/**
 * The study's dead-row effect (experiments.md section 3: after the update test reads were 15-20%
 * slower and the table had grown; VACUUM recovers it): the kv read test, the update test, the read
 * test again, the DBMS's maintenance, the read test once more, with the table's sizes before and
 * after every step. The kv table must already hold config.rows rows.
 */
export async function runDeadRows(server: StepServer, config: DeadRowsConfig, hooks: ExperimentHooks): Promise<ExperimentResult> {
  const dbms = server.target.dbms;
  const observation = server.driver.observe(server.conn);
  const maintenance = maintenanceFor(dbms, TABLE);
  const plan: ({ name: string; test: string } | 'maintenance')[] = [
    { name: 'read', test: 'read' },
    { name: 'update', test: 'update' },
    { name: 'read after update', test: 'read' },
    'maintenance',
    { name: `read after ${maintenance.name}`, test: 'read' },
  ];
  const startedAt = new Date();
  const steps: ExperimentStep[] = [];
  let status: ExperimentResult['status'] = 'completed';
  let statusReason: string | undefined;
  const notes = [maintenance.description, maintenance.sizesNote];
  const release = await holdAutovacuum(server.conn, dbms, TABLE);
  if (release) notes.push(release.note);
  try {
    for (const [index, step] of plan.entries()) {
      if (hooks.signal.aborted) break;
      const sizesBefore = await tableSizes(observation, TABLE);
      if (step === 'maintenance') {
        hooks.log(`step ${index + 1}/${plan.length}: ${maintenance.name} (${maintenance.statements.join('; ')})`);
        const started = performance.now();
        for (const sql of maintenance.statements) await server.conn.query(sql);
        const seconds = Math.round((performance.now() - started) / 10) / 100;
        steps.push({ name: maintenance.name, kind: 'maintenance', result: null, statements: maintenance.statements, description: maintenance.description, seconds, sizesBefore, sizesAfter: await tableSizes(observation, TABLE) });
        continue;
      }
      hooks.log(`step ${index + 1}/${plan.length}: ${step.name}, ${config.clients} client(s), ${config.durationSeconds} s`);
      // Each run draws its own keys (seed + step): a repeated read test would otherwise find the very rows the first one cached.
      const seed = config.seed + index;
      const result = await measureRun(
        server,
        { workload: 'kv', options: { test: step.test }, scale: config.rows, clients: config.clients, jobs: config.jobs, durationSeconds: config.durationSeconds, maxTries: config.maxTries, seed, argv: config.argv },
        hooks.signal,
        hooks.onInterval,
      );
      // The terminals' sessions hand their row counters to the server's statistics as they end, just after the run.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      steps.push({ name: step.name, kind: 'run', result, statements: [], description: '', seconds: result.summary.measuredSeconds, sizesBefore, sizesAfter: await tableSizes(observation, TABLE) });
      if (result.status !== 'completed') {
        status = result.status;
        statusReason = `step "${step.name}": ${result.statusReason ?? result.status}`;
        break;
      }
    }
  } finally {
    await release?.restore();
  }
  if (hooks.signal.aborted && status === 'completed') {
    status = 'interrupted';
    statusReason = 'interrupted by a signal';
  }
  return {
    schema: EXPERIMENT_SCHEMA,
    experiment: 'dead-rows',
    tool: { name: 'headroom', version: TOOL_VERSION },
    status,
    ...(statusReason === undefined ? {} : { statusReason }),
    startedAt: startedAt.toISOString(),
    endedAt: new Date().toISOString(),
    target: { dbms, url: server.url, version: server.info.version },
    config: { workload: 'kv', table: TABLE, rows: config.rows, clients: config.clients, jobs: config.jobs, durationSeconds: config.durationSeconds, maxTries: config.maxTries, seed: config.seed, argv: config.argv },
    notes,
    steps,
  };
}
