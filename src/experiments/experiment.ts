import type { DbmsName } from '../drivers/driver.js';
import type { RunResult } from '../result/result.js';

/** An experiment's file: several runs and the steps between them (docs/result-schema.md). */
export const EXPERIMENT_SCHEMA = 'headroom.experiment/1';

/** One table's sizes as the DBMS reports them; null where it does not tell. */
export interface TableSizes {
  databaseBytes: number | null;
  /** The table with its indexes. */
  totalBytes: number | null;
  tableBytes: number | null;
  indexBytes: number | null;
  liveRows: number | null;
  deadRows: number | null;
}

export interface ExperimentStep {
  name: string;
  kind: 'run' | 'maintenance';
  /** Run steps: the run's whole result, as `headroom run` writes it; null for maintenance. */
  result: RunResult | null;
  /** Maintenance steps: the statements executed, what they do on this DBMS, how long they took. */
  statements: string[];
  description: string;
  seconds: number;
  sizesBefore: TableSizes;
  sizesAfter: TableSizes;
}

export interface ExperimentResult {
  schema: typeof EXPERIMENT_SCHEMA;
  experiment: string;
  tool: { name: 'headroom'; version: string };
  status: 'completed' | 'interrupted' | 'failed';
  statusReason?: string;
  startedAt: string;
  endedAt: string;
  target: { dbms: DbmsName; url: string; version: string };
  config: { workload: string; table: string; rows: number; clients: number; jobs: number; durationSeconds: number; maxTries: number; seed: number; argv: string[] };
  /** What the experiment did beside the steps (e.g. autovacuum held off for the table), in words. */
  notes: string[];
  steps: ExperimentStep[];
}
