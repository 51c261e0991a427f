import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileErrorReason } from '../common/file-errors.js';
import { writeWhole } from '../common/write-whole.js';
import type { RunResult } from './result.js';
import type { SweepResult } from './sweep.js';
import type { ExperimentResult } from './experiment-result.js';

export const DEFAULT_RESULTS_DIR = 'headroom-results';
/** `-o -`: the result as JSON on stdout, and what is meant for people on stderr. */
export const STDOUT_PATH = '-';

/** headroom-results/tpcb-sqlite-20261202-132501.json */
export function defaultResultPath(result: RunResult): string {
  return path.join(DEFAULT_RESULTS_DIR, `${result.config.workload}-${result.target.dbms}-${stamp(result.startedAt)}.json`);
}

/** headroom-results/tpcb-postgres-sweep-20261202-132501.json */
export function defaultSweepPath(workload: string, dbms: string, startedAt: string): string {
  return path.join(DEFAULT_RESULTS_DIR, `${workload}-${dbms}-sweep-${stamp(startedAt)}.json`);
}

/** headroom-results/dead-rows-postgres-20261202-132501.json */
export function defaultExperimentPath(experiment: string, dbms: string, startedAt: string): string {
  return path.join(DEFAULT_RESULTS_DIR, `${experiment}-${dbms}-${stamp(startedAt)}.json`);
}

function stamp(isoTime: string): string {
  return isoTime.replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** -o -: the result as JSON on stdout; otherwise written to the file as writeResult does. */
export async function writeOutput(result: Writable, file: string): Promise<void> {
  if (file === STDOUT_PATH) await writeStream(process.stdout, resultText(result));
  else await writeResult(result, file);
}

/** Whole or not at all (common/write-whole.ts): a crash never leaves half a result, a failed write no temporary file. */
export async function writeResult(result: Writable, file: string): Promise<void> {
  await writeWhole(file, resultText(result));
}

type Writable = RunResult | SweepResult | ExperimentResult<unknown>;

function resultText(result: Writable): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/** The last place a result can go when no file and not stdout will take it. */
const STDERR_TARGET = 'stderr';

/** The file asked for that could not be written, and why. */
export interface Unwritten {
  file: string;
  reason: string;
}

/**
 * Where a result is written: once (a run, an experiment) or again after every step (a sweep). A
 * file that cannot be written (a full disk) costs nothing measured: the result goes to a file of
 * the same name in the system's temporary folder instead, and when that fails too, to stdout
 * (stderr when stdout is what failed) on the final write. Once moved, it stays where it went, so
 * one file holds every step. `file` is where the result is; `unwritten` names what failed and why.
 */
export class ResultOutput {
  file: string;
  unwritten: Unwritten | undefined;

  constructor(readonly asked: string) {
    this.file = asked;
  }

  /** `final`: the last write; a stream (stdout, stderr) gets the result only then. */
  async save(result: Writable, final: boolean): Promise<void> {
    for (;;) {
      if (!final && isStream(this.file)) return;
      try {
        if (this.file === STDERR_TARGET) await writeStream(process.stderr, resultText(result));
        else await writeOutput(result, this.file);
        return;
      } catch (error) {
        this.unwritten ??= { file: this.file, reason: fileErrorReason(error) };
        const next = this.fallback();
        if (next === undefined) throw error;
        this.file = next;
      }
    }
  }

  /** One line for the user when the result is not where it was asked to be; undefined when it is. */
  unwrittenLine(what: string): string | undefined {
    const unwritten = this.unwritten;
    if (unwritten === undefined) return undefined;
    return `cannot write the ${what} to ${targetName(unwritten.file)}: ${unwritten.reason}; it was written to ${targetName(this.file)} instead`;
  }

  private fallback(): string | undefined {
    if (this.file === this.asked && this.asked !== STDOUT_PATH) {
      const spare = path.join(tmpdir(), `headroom-${process.pid}-${path.basename(this.asked)}`);
      if (path.resolve(spare) !== path.resolve(this.asked)) return spare;
    }
    if (this.file === this.asked && this.asked === STDOUT_PATH) return path.join(tmpdir(), `headroom-${process.pid}-result.json`);
    if (this.file !== STDOUT_PATH && this.file !== STDERR_TARGET && this.asked !== STDOUT_PATH) return STDOUT_PATH;
    if (this.file !== STDERR_TARGET) return STDERR_TARGET;
    return undefined;
  }
}

function isStream(target: string): boolean {
  return target === STDOUT_PATH || target === STDERR_TARGET;
}

function targetName(target: string): string {
  return target === STDOUT_PATH ? 'stdout' : target;
}

/** Resolves once the stream took the text, rejects with its error (stdout on a full disk: ENOSPC). */
function writeStream(stream: NodeJS.WriteStream, text: string): Promise<void> {
  // The callback carries the error; without a listener the stream's 'error' event would end the process.
  if (stream.listenerCount('error') === 0) stream.on('error', () => {});
  return new Promise((resolve, reject) => {
    stream.write(text, (error) => (error ? reject(error) : resolve()));
  });
}
