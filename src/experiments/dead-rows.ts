import type { SeriesPoint } from '../engine/measurements.js';
import type { RunResult } from '../result/result.js';
import { logLine } from '../session/session.js';
import { kv } from '../workloads/kv/index.js';
import { TABLE } from '../workloads/kv/schema.js';
import { maintenanceFor } from '../drivers/maintenance.js';
import { measureStep } from './measure.js';
import { holdAutovacuum } from './autovacuum.js';
import type { ExperimentContext } from './runner.js';
import { tableSizes } from './table-sizes.js';
import type { DeadRowsRow } from '../result/experiment-rows.js';

const SETTLE_MS = 1000;

export interface DeadRowsConfig {
  rows: number;
  clients: number;
  jobs: number;
  durationSeconds: number;
  maxTries: number;
  seed: number;
  argv: readonly string[];
  data: RunResult['data'];
  onInterval(point: SeriesPoint): void;
}

/**
 * The study's dead-row effect (docs/experiments.md section 3: after the update test reads were 15-20%
 * slower and the table had grown; VACUUM recovers it): the kv read test, the update test, the read
 * test again, the DBMS's maintenance, the read test once more, with the table's sizes before and
 * after every step. The kv table must already hold config.rows rows.
 */
export async function runDeadRows(ctx: ExperimentContext<DeadRowsRow>, config: DeadRowsConfig): Promise<void> {
  const { session } = ctx;
  const dbms = session.target.dbms;
  const observation = session.driver.observe(session.conn);
  const maintenance = maintenanceFor(dbms, TABLE);
  const plan: ({ name: string; test: string } | 'maintenance')[] = [
    { name: 'read', test: 'read' },
    { name: 'update', test: 'update' },
    { name: 'read after update', test: 'read' },
    'maintenance',
    { name: `read after ${maintenance.name}`, test: 'read' },
  ];
  ctx.note(maintenance.description);
  ctx.note(maintenance.sizesNote);
  const release = await holdAutovacuum(session, TABLE, logLine);
  if (release) ctx.note(release.note);
  try {
    for (const [index, step] of plan.entries()) {
      if (ctx.signal.aborted) break;
      const sizesBefore = await tableSizes(observation, TABLE);
      if (step === 'maintenance') {
        logLine(`step ${index + 1}/${plan.length}: ${maintenance.name} (${maintenance.statements.join('; ')})`);
        const started = performance.now();
        for (const sql of maintenance.statements) await session.conn.query(sql);
        const seconds = Math.round((performance.now() - started) / 10) / 100;
        const sizesAfter = await tableSizes(observation, TABLE);
        ctx.record({
          step: index + 1,
          name: maintenance.name,
          kind: 'maintenance',
          seconds,
          sizesBefore,
          sizesAfter,
          statements: maintenance.statements,
          description: maintenance.description,
        });
        continue;
      }
      logLine(`step ${index + 1}/${plan.length}: ${step.name}, ${config.clients} client(s), ${config.durationSeconds} s`);
      const run = await measureStep(
        {
          ...ctx,
          workload: kv,
          workloadOptions: { test: step.test },
          scale: config.rows,
          clients: config.clients,
          jobs: config.jobs,
          durationSeconds: config.durationSeconds,
          observe: true,
          // Only the first run loaded (if anything was loaded); the later ones find the data there.
          data: index === 0 ? config.data : { loadedBy: 'earlier', phases: [] },
          argv: config.argv,
          // Each run draws its own keys (seed + step): a repeated read test would otherwise find the very rows the first one cached.
          seed: config.seed + index,
          maxTries: config.maxTries,
          onInterval: config.onInterval,
        },
        ctx.signal,
        ctx.hurry,
      );
      // The run stays in the file; its row needs the table's sizes after it, which the server no longer gives.
      if (session.unanswered !== undefined) {
        ctx.record(undefined, run);
        break;
      }
      // The terminals' sessions hand their row counters to the server's statistics as they end, just after the run.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const sizesAfter = await tableSizes(observation, TABLE);
      const { summary } = run;
      ctx.record(
        {
          step: index + 1,
          name: step.name,
          kind: 'run',
          seconds: summary.measuredSeconds,
          sizesBefore,
          sizesAfter,
          test: step.test,
          tps: summary.tps,
          p50Ms: summary.latencyMs.p50,
          p99Ms: summary.latencyMs.p99,
          failed: summary.failed,
        },
        run,
      );
      if (run.status !== 'completed') break;
    }
  } finally {
    // A server that stopped answering is asked nothing more: its pending record has the next command put the hold back.
    if (session.unanswered === undefined) await release?.restore();
    else if (release) logLine(`${session.unanswered}: autovacuum's hold on ${TABLE} left in place for the next headroom command to take back`);
  }
}
