import { defineOptions } from '../config/options.js';
import { UserError } from '../errors.js';
import { readFile } from 'node:fs/promises';
import { journalOutcome, parseJournal } from '../engine/journal.js';
import type { CheckOutcome } from '../workloads/workload.js';
import { PGBENCH_INIT_OPTIONS, pgbenchDoneLine, pgbenchInitOptions } from './pgbench-init-options.js';
import { checkPgbenchInit, pgbenchInit, type GenerationProgress } from '../workloads/tpcb/pgbench-init.js';
import { recordedLoad } from '../workloads/load-marker.js';
import { loadData, refuseIncompleteData, refuseUnfinishedLoad } from '../session/load-data.js';
import { CLOSING_OPTIONS, DB_OPTION, LOAD_FORCE_OPTION, SCALE_OPTION, askedScale } from '../session/options.js';
import { dataContext, logLine, openSession, type Session } from '../session/session.js';
import { parseVerbArgs } from './common.js';
import { adoptDataOptions } from '../session/data-options.js';
import { CHECKING } from '../session/unanswered-notice.js';
import { watchBeforeWork } from '../session/interrupt.js';

export const INIT_OPTIONS = defineOptions([DB_OPTION, SCALE_OPTION, LOAD_FORCE_OPTION, ...PGBENCH_INIT_OPTIONS, ...CLOSING_OPTIONS]);
export const CHECK_OPTIONS = defineOptions([
  DB_OPTION,
  { long: 'journal', type: 'string', value: 'FILE', help: 'also compare the commits a run --journal FILE saw acknowledged with what the database kept' },
  ...CLOSING_OPTIONS,
]);
export const DROP_OPTIONS = defineOptions([DB_OPTION, ...CLOSING_OPTIONS]);

/** `headroom init`: drop what is there, create the schema and load it at the scale given. */
export async function initCommand(argv: readonly string[]): Promise<number> {
  return initWithStyle(argv, {});
}

/** headroom pgbench -i: pgbench's step lines and its closing line on stderr, as pgbench prints them. */
export interface InitStyle {
  announce?: (line: string) => void;
  doneLine?: (line: string) => void;
  /** The accounts' generation as it goes (pgbench -i's progress lines), and -q's fewer lines. */
  progress?: GenerationProgress;
  quiet?: boolean;
}

export async function initWithStyle(argv: readonly string[], style: InitStyle): Promise<number> {
  const { workload, values, given, workloadOptions } = await parseVerbArgs(argv, 'init', INIT_OPTIONS);
  const scale = askedScale(workload, values) ?? workload.defaultScale;
  const asked = pgbenchInitOptions(values, given, workload.name);
  const pgbench = asked && style.announce ? { ...asked, announce: style.announce, progress: style.progress, quiet: style.quiet } : asked;
  const session = await openSession(values, workload, workloadOptions);
  try {
    logLine(`loading ${workload.name} at scale ${scale} into ${session.url}${pgbench ? ` as pgbench -i -I ${pgbench.steps}` : ''}`);
    const started = performance.now();
    const base = { conn: session.conn, driver: session.driver, dbms: session.target.dbms, options: workloadOptions, log: logLine };
    const force = values['force'] === true;
    if (pgbench) {
      checkPgbenchInit(session.target.dbms, pgbench);
      // Steps that make or empty the tables replace the data: recorded as a load, finished only when they generate data.
      const replaces = /[dtgG]/.test(pgbench.steps);
      const steps = (ctx: typeof base & { scale: number }) => pgbenchInit(ctx, pgbench);
      const generates = /[gG]/.test(pgbench.steps);
      const load = replaces ? recordedLoad('tpcb', workload.tables, steps, generates) : steps;
      const present = replaces ? await workload.detectScale(base) : undefined;
      const phases = await loadData({ session, workload, options: workloadOptions, scale, present, verb: 'init', force, load, writesData: generates });
      if (style.doneLine) style.doneLine(pgbenchDoneLine(phases));
      else process.stdout.write(`${pgbenchDoneLine(phases)}\n`);
      return 0;
    }
    await loadData({ session, workload, options: workloadOptions, scale, present: await workload.detectScale(base), verb: 'init', force });
    process.stdout.write(`loaded ${workload.name} at scale ${scale} in ${((performance.now() - started) / 1000).toFixed(2)} s\n`);
    return 0;
  } finally {
    await session.close();
  }
}

/** `headroom check`: verify the workload's data invariants; exit 1 when one fails. */
export async function checkCommand(argv: readonly string[]): Promise<number> {
  const { workload, values, given, workloadOptions } = await parseVerbArgs(argv, 'check', CHECK_OPTIONS);
  const session = await openSession(values, workload, workloadOptions);
  // A check over large data, or one another session's lock holds up, says what it waits for, and
  // what Ctrl-C stopped.
  const stopWatching = watchBeforeWork(session, CHECKING);
  try {
    const base = { conn: session.conn, driver: session.driver, dbms: session.target.dbms, options: workloadOptions, log: logLine };
    const scale = await workload.detectScale(base);
    if (scale === undefined) {
      // An unfinished load the workload cannot see as data (kv's table without its key) is said as such.
      await refuseUnfinishedLoad(session, workload);
      throw new UserError(`no ${workload.name} data in ${session.url}`, `load it first: headroom init ${workload.name}`);
    }
    await refuseIncompleteData(session, workload, workloadOptions, scale);
    // The data is checked as it was loaded: its recorded options, not other ones.
    await adoptDataOptions(session, workload, workloadOptions, given, scale);
    const outcomes = await workload.check(dataContext(session, workloadOptions, scale, logLine));
    const journalFile = values.journal;
    if (journalFile !== undefined) outcomes.push(...(await checkJournal(session, journalFile)));
    for (const o of outcomes) process.stdout.write(`${o.ok ? 'ok  ' : 'FAIL'}  ${o.name}: ${o.detail}\n`);
    const failed = outcomes.filter((o) => !o.ok).length;
    process.stdout.write(failed === 0 ? `all ${outcomes.length} checks passed\n` : `${failed} of ${outcomes.length} checks failed\n`);
    return failed === 0 ? 0 : 1;
  } finally {
    stopWatching();
    await session.close();
  }
}

/** `headroom drop`: remove the workload's tables. */
export async function dropCommand(argv: readonly string[]): Promise<number> {
  const { workload, values, workloadOptions } = await parseVerbArgs(argv, 'drop', DROP_OPTIONS);
  const session = await openSession(values, workload, workloadOptions);
  try {
    await workload.drop({ conn: session.conn, driver: session.driver, dbms: session.target.dbms, options: workloadOptions, log: logLine });
    process.stdout.write(`dropped ${workload.name} from ${session.url}\n`);
    return 0;
  } finally {
    await session.close();
  }
}

/**
 * Acknowledged commits must all be in headroom_journal; those whose outcome was unknown may or may
 * not be. Only an acknowledged (A) line counts as a promise: a torn line (a write cut short by a
 * full disk or a crash of headroom) names no commit and is counted as torn, never as lost. Ids in
 * the database of the journal's runs that the journal lacks are commits whose line was never
 * written (headroom stopped between the acknowledgement and the write): extra, not lost.
 */
async function checkJournal(session: Session, file: string): Promise<CheckOutcome[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UserError(`cannot read the journal ${file}: ${(error as Error).message}`, 'give the file a run wrote with --journal FILE');
  }
  const journal = parseJournal(text);
  if (!(await session.driver.tableExists(session.conn, 'headroom_journal'))) {
    throw new UserError(`${session.url} has no headroom_journal table`, 'the journal belongs to a run with --journal against another database');
  }
  const kept = new Set((await session.conn.query('SELECT id FROM headroom_journal')).map((row) => String(row[0])));
  return [journalOutcome(journal, kept)];
}
