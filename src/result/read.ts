import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import { redactArgv } from '../config/redact.js';
import { RESULT_SCHEMA, type RunResult } from './result.js';
import { SWEEP_SCHEMA, type SweepResult } from './sweep.js';

/** What headroom run writes: one run's result, or a sweep's steps (each a run's result). */
export type ResultFile = { kind: 'run'; result: RunResult } | { kind: 'sweep'; sweep: SweepResult };

/** Reads a result file or a sweep file, checked as readResult checks each run. */
export function readResultFile(file: string): ResultFile {
  const parsed = readJson(file);
  const schema = isRecord(parsed) ? parsed['schema'] : undefined;
  if (typeof schema !== 'string' || !schema.startsWith('headroom.sweep/')) return { kind: 'run', result: checkResult(file, parsed) };
  if (schema !== SWEEP_SCHEMA)
    throw new UserError(
      `${file} has schema ${schema}; this version of headroom reads ${SWEEP_SCHEMA}`,
      'use the headroom version that wrote it, or rerun the sweep with this one',
    );
  const sweep = parsed as SweepResult;
  if (!Array.isArray(sweep.steps) || !Array.isArray(sweep.clients))
    throw new UserError(`${file} is a damaged sweep file (field "steps" or "clients" is missing or wrong)`, 'rerun the sweep to write it again');
  sweep.steps.forEach((step, i) => checkResult(`${file} (step ${i + 1})`, step));
  if (Array.isArray(sweep.argv)) sweep.argv = redactArgv(sweep.argv);
  return { kind: 'sweep', sweep };
}

/**
 * Reads and checks one result file. Only the fields readers rely on are checked, so a file from
 * a newer headroom of the same schema version (which may add fields) still reads.
 */
export function readResult(file: string): RunResult {
  const parsed = readJson(file);
  if (isRecord(parsed) && parsed['schema'] === SWEEP_SCHEMA) {
    throw new UserError(`${file} is a sweep file, not one run's result`, 'give the result of a single run (headroom run -c N), or headroom report the sweep');
  }
  return checkResult(file, parsed);
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new UserError(`no such file: ${file}`, 'give the path of a result file written by headroom run (default folder headroom-results/)');
    if (code === 'EISDIR') throw new UserError(`${file} is a folder, not a result file`, `name the files in it, e.g. ${path.join(file, '*.json')}`);
    throw new UserError(`cannot read ${file}: ${(error as Error).message}`, 'check the path and its permissions', { cause: error });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UserError(`${file} is not a headroom result file (not JSON)`, 'give a file written by headroom run');
  }
}

function checkResult(file: string, parsed: unknown): RunResult {
  const schema = isRecord(parsed) ? parsed['schema'] : undefined;
  if (typeof schema === 'string' && schema.startsWith('headroom.experiment/')) {
    throw new UserError(
      `${file} is an experiment file, not a run result`,
      'headroom compare and headroom report read experiment files; each of its runs is in its "runs" field',
    );
  }
  if (typeof schema !== 'string' || !schema.startsWith('headroom.result/')) {
    throw new UserError(`${file} is not a headroom result file (no "schema": "${RESULT_SCHEMA}")`, 'give a file written by headroom run');
  }
  if (schema !== RESULT_SCHEMA) {
    throw new UserError(
      `${file} has schema ${schema}; this version of headroom reads ${RESULT_SCHEMA}`,
      'use the headroom version that wrote it, or rerun the benchmark with this one',
    );
  }
  const record = parsed as Record<string, unknown>;
  const damaged = REQUIRED.find((key) =>
    key === 'series' || key === 'transactions' ? !Array.isArray(record[key]) : !isRecord(record[key]) && typeof record[key] !== 'string',
  );
  if (damaged !== undefined)
    throw new UserError(`${file} is a damaged result file (field "${damaged}" is missing or wrong)`, 'rerun the benchmark to write it again');
  const result = parsed as RunResult;
  // Files written before the command line was redacted at the source still hold passwords: never show them.
  if (Array.isArray(result.config.argv)) result.config.argv = redactArgv(result.config.argv);
  return result;
}

const REQUIRED = ['status', 'config', 'target', 'host', 'data', 'summary', 'transactions', 'series'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
