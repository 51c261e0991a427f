import { readFileSync } from 'node:fs';
import os from 'node:os';
import { redactArgv } from '../config/redact.js';
import type { ServerInfo } from '../drivers/driver.js';
import type { ServerSettingsRecord } from './server-settings-record.js';
import { TOOL_VERSION, targetRecord } from './build.js';
import { describeHost, type HostInfo } from './host.js';
import type { RunResult, TargetRecord } from './result.js';

/** One file per experiment series; docs/result-schema.md describes it beside headroom.result/1. */
export const EXPERIMENT_SCHEMA = 'headroom.experiment/1';

export interface ExperimentResult<Row> {
  schema: typeof EXPERIMENT_SCHEMA;
  tool: { name: 'headroom'; version: string };
  experiment: string;
  status: 'completed' | 'interrupted' | 'failed';
  statusReason?: string;
  startedAt: string;
  endedAt: string;
  argv: string[];
  target: TargetRecord;
  /** memTotalBytes: MemTotal from /proc/meminfo (os.totalmem() elsewhere); serverOnThisMachine: whether that RAM is the server's. */
  host: HostInfo & { memTotalBytes: number; serverOnThisMachine: boolean };
  serverSettings: ServerSettingsRecord;
  /** The experiment's table, one row per step (see docs/result-schema.md for each experiment's row). */
  rows: Row[];
  /** Each run step's full run result (headroom.result/1), in the order of rows; a step that runs no load (dead-rows' maintenance) has none. */
  runs: RunResult[];
  /** What the experiment did beside its steps (e.g. autovacuum held off for the table), in words; absent when nothing. */
  notes?: string[];
}

/** The machine's RAM as the kernel counts it. */
export function memTotalBytes(): number {
  try {
    const match = /^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // not Linux
  }
  return os.totalmem();
}

export function experimentHeader(
  experiment: string,
  argv: readonly string[],
  url: string,
  server: ServerInfo,
  settings: ServerSettingsRecord,
  serverOnThisMachine: boolean,
): Omit<ExperimentResult<never>, 'rows' | 'runs' | 'status' | 'endedAt'> {
  return {
    schema: EXPERIMENT_SCHEMA,
    tool: { name: 'headroom', version: TOOL_VERSION },
    experiment,
    startedAt: new Date().toISOString(),
    argv: redactArgv(argv),
    target: targetRecord(server, url),
    host: { ...describeHost(), memTotalBytes: memTotalBytes(), serverOnThisMachine },
    serverSettings: settings,
  };
}
