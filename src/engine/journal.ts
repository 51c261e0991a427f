import { open, type FileHandle } from 'node:fs/promises';
import type { DbmsName } from '../drivers/driver.js';
import { createTableIfMissing } from '../drivers/create-table.js';

/**
 * The client-side record of commits for the durability check (--journal): `A id` once the server
 * acknowledged a commit, `U id` when the connection died while the commit was in flight (the
 * outcome is unknown). Lines are appended and fsynced in groups: an id is only ever written
 * after its acknowledgement, so every `A` line is a promise the database made.
 */
export class JournalWriter {
  private pending: string[] = [];
  private flushing: Promise<void> | undefined;

  private constructor(private readonly handle: FileHandle) {}

  static async open(file: string): Promise<JournalWriter> {
    return new JournalWriter(await open(file, 'a'));
  }

  acknowledged(id: string): void {
    this.add(`A ${id}\n`);
  }

  unknown(id: string): void {
    this.add(`U ${id}\n`);
  }

  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    await this.handle.close();
  }

  private add(line: string): void {
    this.pending.push(line);
    this.flushing ??= this.flush();
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const lines = this.pending.join('');
      this.pending = [];
      await this.handle.appendFile(lines);
      await this.handle.sync();
    }
    this.flushing = undefined;
  }
}

export interface JournalContents {
  acknowledged: Set<string>;
  unknown: Set<string>;
}

export function parseJournal(text: string): JournalContents {
  const acknowledged = new Set<string>();
  const unknown = new Set<string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('A ')) acknowledged.add(line.slice(2));
    else if (line.startsWith('U ')) unknown.add(line.slice(2));
  }
  return { acknowledged, unknown };
}

/** The table each journaled commit writes its id into, inside the same transaction. */
export function journalTableDdl(dbms: DbmsName): string {
  return createTableIfMissing(dbms, 'headroom_journal', 'id varchar(80) NOT NULL PRIMARY KEY');
}
