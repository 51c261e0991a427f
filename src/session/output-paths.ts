import { closeSync, constants, openSync, statSync, unlinkSync, accessSync, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { UserError } from '../errors.js';
import { fileErrorReason } from '../common/file-errors.js';

import { transactionLogFile, type TransactionLogConfig } from '../engine/transaction-log.js';
import { DEFAULT_RESULTS_DIR, STDOUT_PATH } from '../result/write.js';

/**
 * Refuses, before anything is loaded or measured, a file the run could not write when it is
 * over: the result (-o or the default folder), the -l logs, the --journal. A file already there
 * must be writable; its folder, or the nearest one that exists (the rest is created), must take a
 * new file: one is created and removed, which also finds a read-only mount, where access() as
 * root says yes.
 */
export function checkWritable(file: string, what: string, hint: string): void {
  const full = path.resolve(file);
  try {
    const existing = statOrUndefined(full);
    if (existing?.isDirectory()) throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
    if (existing) accessSync(full, constants.W_OK);
    let folder = path.dirname(full);
    while (statOrUndefined(folder) === undefined) folder = path.dirname(folder);
    const probe = path.join(folder, `.headroom-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    closeSync(openSync(probe, 'wx'));
    unlinkSync(probe);
  } catch (error) {
    throw new UserError(`cannot write ${what}: ${fileErrorReason(error)}`, hint);
  }
}

/** A run's (or an experiment's) files, checked before it starts: -o or the default folder, -l's logs, --journal. */
export function checkRunOutputs(values: { out: string | undefined; journal?: string | undefined }, log?: TransactionLogConfig): void {
  const out = values.out;
  if (out === undefined)
    checkWritable(
      path.join(DEFAULT_RESULTS_DIR, 'result.json'),
      `the result into ${DEFAULT_RESULTS_DIR}/`,
      'run from a writable folder, or give -o FILE, or -o - for stdout',
    );
  else if (out !== STDOUT_PATH) checkWritable(out, `the result to ${out}`, 'give a writable path with -o, or -o - for stdout');
  if (log) checkWritable(transactionLogFile(log, 0), `the transaction log to ${transactionLogFile(log, 0)}`, 'give a writable --log-prefix');
  const journal = values.journal;
  if (journal !== undefined) checkWritable(journal, `the journal to ${journal}`, 'give a writable path with --journal');
}

function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
