import { open, type FileHandle } from 'node:fs/promises';
import type { DbmsName } from '../drivers/driver.js';
import { createTableIfMissing } from '../drivers/create-table.js';
import type { CheckOutcome } from '../workloads/workload.js';

/**
 * The client-side record of commits for the durability check (--journal): one line per commit
 * attempt, written once its outcome is known, with one of three outcomes (as Jepsen records
 * operations: ok, fail, info):
 *
 *   A id   ok: the server acknowledged the commit; only these are promises the database made
 *   F id   failed: the server answered COMMIT with a refusal (a conflict, a bad request): rolled back
 *   U id   unknown: the connection died, or another error came, while the commit was in flight
 *
 * Nothing is written before COMMIT, so a transaction has exactly one line, or none when headroom
 * stopped before its outcome was written (the database may then hold an id the journal lacks).
 * Lines are appended and fsynced in groups. A write that fails (a full disk) may leave the last
 * line torn, without its newline; nothing more is written after it, and `failed` rejects with the
 * error so that the job, and the run, end failed.
 */
export class JournalWriter {
  private pending: string[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;
  /** The write that failed: the journal is incomplete from here on. */
  error: Error | undefined;
  /** Rejects when a write fails; never resolves otherwise. */
  readonly failed: Promise<never>;
  private fail!: (error: Error) => void;

  private constructor(
    private readonly handle: FileHandle,
    private readonly file: string,
  ) {
    this.failed = new Promise<never>((_, reject) => (this.fail = reject));
    // Whoever races it hears of it; nobody listening is no reason to end the process.
    this.failed.catch(() => {});
  }

  static async open(file: string): Promise<JournalWriter> {
    return new JournalWriter(await open(file, 'a'), file);
  }

  acknowledged(id: string): void {
    this.add(`A ${id}\n`);
  }

  refused(id: string): void {
    this.add(`F ${id}\n`);
  }

  unknown(id: string): void {
    this.add(`U ${id}\n`);
  }

  /** Writes what is pending and closes the file; an outcome that comes later is not written (its commit is one the journal lacks). */
  async close(): Promise<void> {
    this.closed = true;
    while (this.flushing) await this.flushing;
    await this.handle.close();
  }

  private add(line: string): void {
    if (this.closed || this.error) return;
    this.pending.push(line);
    this.flushing ??= this.flush();
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0 && !this.error) {
        const lines = this.pending.join('');
        this.pending = [];
        await this.handle.appendFile(lines);
        await this.handle.sync();
      }
    } catch (error) {
      this.pending = [];
      this.error = new Error(`writing the journal ${this.file} failed: ${(error as Error).message}`, { cause: error });
      this.fail(this.error);
    } finally {
      this.flushing = undefined;
    }
  }
}

/** What a journal file says, line by line. */
export interface JournalContents {
  /** Commits the server acknowledged: each must be in the database. */
  acknowledged: Set<string>;
  /** Commits the server refused. */
  refused: Set<string>;
  /** Commits whose outcome the client never learned: either way is correct. */
  unknown: Set<string>;
  /**
   * Lines cut short by a write that failed part way (a full disk, a crash of headroom): the last
   * line without its newline, or a line that is no outcome and id. They name no commit, so they
   * count as no commit: an acknowledged commit whose line is torn is one the journal lacks.
   */
  torn: string[];
  /** The runs whose ids the journal holds (an id is RUN.TERMINAL.SEQUENCE). */
  runs: Set<string>;
}

/** An outcome and an id as journaled commits write it: RUN.TERMINAL.SEQUENCE (the run's 12 hex digits, two numbers). */
const JOURNAL_LINE = /^([AFU]) (([^\s.]+)\.\d+\.\d+)$/;

export function parseJournal(text: string): JournalContents {
  const contents: JournalContents = { acknowledged: new Set(), refused: new Set(), unknown: new Set(), torn: [], runs: new Set() };
  const lines = text.split('\n');
  // A journal that ends with its newline leaves an empty last piece; anything else there is a line cut short.
  const last = lines.pop()!;
  if (last !== '') contents.torn.push(last);
  for (const line of lines) {
    const match = JOURNAL_LINE.exec(line);
    if (!match) {
      if (line !== '') contents.torn.push(line);
      continue;
    }
    const [, outcome, id, run] = match;
    contents.runs.add(run!);
    (outcome === 'A' ? contents.acknowledged : outcome === 'F' ? contents.refused : contents.unknown).add(id!);
  }
  return contents;
}

/** The journal against the ids the database kept (check --journal's one line): only acknowledged commits can be lost. */
export function journalOutcome(journal: JournalContents, kept: ReadonlySet<string>): CheckOutcome {
  const lost = [...journal.acknowledged].filter((id) => !kept.has(id));
  const unknownKept = [...journal.unknown].filter((id) => kept.has(id)).length;
  const refusedKept = [...journal.refused].filter((id) => kept.has(id)).length;
  const extra = [...kept].filter(
    (id) => journal.runs.has(id.slice(0, id.indexOf('.'))) && !journal.acknowledged.has(id) && !journal.unknown.has(id) && !journal.refused.has(id),
  ).length;
  const parts = [
    `${journal.acknowledged.size - lost.length} of ${journal.acknowledged.size} acknowledged commits are in the database, ${lost.length} lost` +
      (lost.length > 0 ? ` (first lost: ${lost.slice(0, 5).join(', ')})` : ''),
    `${journal.unknown.size} in flight with their outcome unknown (${unknownKept} kept, ${journal.unknown.size - unknownKept} not)`,
  ];
  if (journal.refused.size > 0) parts.push(`${journal.refused.size} refused by the server (${refusedKept} of them in the database)`);
  if (extra > 0)
    parts.push(`${extra} in the database without a journal line (committed, but headroom stopped or its journal failed before the line was written)`);
  if (journal.torn.length > 0)
    parts.push(`${journal.torn.length} torn line${journal.torn.length === 1 ? '' : 's'} (a write cut short, e.g. by a full disk: no commit is read from it)`);
  return { name: 'acknowledged commits kept', ok: lost.length === 0, detail: parts.join('; ') };
}

/** The table each journaled commit writes its id into, inside the same transaction. */
export function journalTableDdl(dbms: DbmsName): string {
  return createTableIfMissing(dbms, 'headroom_journal', 'id varchar(80) NOT NULL PRIMARY KEY');
}
