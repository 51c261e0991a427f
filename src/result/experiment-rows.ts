/**
 * The rows of the experiments' files (headroom.experiment/1, docs/result-schema.md): declared
 * here, with the file's other records, so that reports read them without importing experiments/.
 */

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

export interface GrowthRow {
  step: number;
  scale: number;
  /** The database's size after the load, as the DBMS counts it (see docs/result-schema.md): other tables in it too. */
  databaseBytes: number | null;
  /**
   * The workload's own tables with their indexes after the load; null where the DBMS gives no
   * per-table sizes (Firebird). Absent in files written before it was added.
   */
  tablesBytes?: number | null;
  loadSeconds: number;
  loadMBps: number | null;
  clients: number;
  measuredSeconds: number;
  tps: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  clientCpuPercent: number;
  /** Database larger than this machine's RAM; null when the server runs on another machine. */
  largerThanRam: boolean | null;
}

/** One run of the chain study's sequence (experiment chain-study); its full result is in the file's runs, in order. */
export interface ChainStudyRow {
  /** The statement style the sequence ran with (study, prepared). */
  statements: string;
  /** "distributed N" (the Nth distributed run) or "localized T" (the localized sweep's step at T terminals). */
  run: string;
  terminals: number;
  unitsPerTerminal: number;
  transactions: number;
  failed: number;
  /** The study's Total time (connecting included) and its figures; null where the run has none. */
  totalMs: number | null;
  msPerTransaction: number | null;
  trPerSec: number | null;
  /** headroom's tps over the measured period. */
  tps: number;
  maxWaitMs: number;
  avgWaitMs: number;
  planningMsPerUnit: number | null;
  planningShareOfServerCpu: number | null;
  /**
   * The terminals' start stagger (study style: 10 ms apart) and their connecting, in ms: the part of
   * Total time in which not every terminal was working yet. Absent in files written before it was added.
   */
  startMs?: number | null;
}

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

interface StepRow {
  /** 1-based position in the experiment. */
  step: number;
  name: string;
  seconds: number;
  /** The kv table's sizes just before and just after the step. */
  sizesBefore: TableSizes;
  sizesAfter: TableSizes;
}

/** A measured run of the kv read or update test; its full result is in the file's runs, in order. */
export interface DeadRowsRunRow extends StepRow {
  kind: 'run';
  test: string;
  tps: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
}

/** The DBMS's maintenance between the runs: what it executed and what that does here. */
export interface DeadRowsMaintenanceRow extends StepRow {
  kind: 'maintenance';
  statements: string[];
  description: string;
}

export type DeadRowsRow = DeadRowsRunRow | DeadRowsMaintenanceRow;
