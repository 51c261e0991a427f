import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import path from 'node:path';
import { serverTargetOf, type Target } from '../config/target.js';
import type { Connection, Driver, PendingChange, PendingRecord, PendingStore } from '../drivers/driver.js';
import { parsePendingRecords } from '../drivers/pending-records.js';
import { UserError } from '../errors.js';
import type { SettingAsked } from '../result/server-settings-record.js';

/**
 * Changes headroom makes that outlive its connection (server-wide settings, a table's autovacuum)
 * are recorded before they are made: in a file on this machine, fsynced, and on the server where
 * the DBMS allows (src/drivers/<dbms>/pending-store.ts). A command that ends puts them back and
 * removes the records; one that is killed leaves them, and the next command against that server
 * finds them (settlePendingChanges) and puts back what is still as headroom left it.
 */

/** $HEADROOM_STATE_DIR, else $XDG_STATE_HOME/headroom, else ~/.local/state/headroom. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['HEADROOM_STATE_DIR'] || path.join(env['XDG_STATE_HOME'] || path.join(homedir(), '.local', 'state'), 'headroom');
}

function recordsDir(): string {
  return path.join(stateDir(), 'pending-settings');
}

/** Which server a client-side record is about; SQLite has none. */
export function serverKey(target: Target): string | undefined {
  const server = serverTargetOf(target);
  return server ? `${server.dbms}://${server.host}:${server.port}` : undefined;
}

/** Written to a temporary name, fsynced, renamed and the folder fsynced: the record is on disk before the change is made. */
function writeDurably(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
  const dir = openSync(path.dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

function clientRecords(server: string): { record: PendingRecord; file: string }[] {
  let names: string[];
  try {
    names = readdirSync(recordsDir()).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const file = path.join(recordsDir(), name);
    try {
      return parsePendingRecords(readFileSync(file, 'utf8'))
        .filter((r) => r.server === server)
        .map((record) => ({ record, file }));
    } catch {
      return [];
    }
  });
}

export function describeChange(change: PendingChange): string {
  return change.kind === 'table' ? `${change.name} of table ${change.table} (database ${change.database})` : change.name;
}

/** The records of one command's changes, from before they are made until they are put back. */
export class PendingChanges {
  private constructor(
    private readonly store: PendingStore,
    private readonly record: PendingRecord,
    readonly file: string,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * Writes both records and says what is about to change and how to put it back by hand; call
   * before making the changes. `command` is the verb, for the messages of the commands that find them.
   */
  static async begin(
    driver: Driver,
    conn: Connection,
    target: Target,
    changes: PendingChange[],
    warn: (message: string) => void,
    command?: string,
  ): Promise<PendingChanges> {
    const store = driver.pendingStore;
    const server = serverKey(target);
    if (!store || !server) throw new Error(`${driver.dbms} keeps no record of changes that outlive a connection`);
    const record: PendingRecord = {
      id: randomUUID(),
      server,
      writtenAt: new Date().toISOString(),
      client: `${hostname()} pid ${process.pid}`,
      holder: await store.holder(conn),
      ...(command === undefined ? {} : { command }),
      changes,
    };
    const file = path.join(recordsDir(), `${record.id}.json`);
    try {
      writeDurably(file, `${JSON.stringify(record, null, 2)}\n`);
    } catch (error) {
      throw new UserError(
        `cannot record the changes headroom is about to make on the server in ${file} (${(error as Error).message}), so it makes none`,
        'set HEADROOM_STATE_DIR to a writable folder',
      );
    }
    try {
      await store.put(conn, record);
    } catch (error) {
      warn(`could not keep the record on the server too (${(error as Error).message}); only ${file} holds it, so only this machine will find it`);
    }
    for (const change of changes) {
      const scope = change.kind === 'global' ? ' for everyone on the server' : '';
      const when = 'headroom puts it back when this command ends, or at its next command against this server if this one is killed';
      warn(
        `changing ${describeChange(change)} to ${change.set} (was ${change.previous})${scope}; ${when}; by hand: ${store.restoreStatements(change).join('; ')}`,
      );
    }
    return new PendingChanges(store, record, file, warn);
  }

  /**
   * Writes both records again once the changes they hold were updated in place (a value as the
   * DBMS spells it after it was set), so that a later command compares like with like.
   */
  async rewrite(conn: Connection): Promise<void> {
    try {
      writeDurably(this.file, `${JSON.stringify(this.record, null, 2)}\n`);
      await this.store.put(conn, this.record);
    } catch (error) {
      this.warn(`could not update headroom's record of the changes (${(error as Error).message}); it keeps the values as they were asked`);
    }
  }

  /** The changes are back: removes both records. */
  async end(conn: Connection): Promise<void> {
    try {
      await this.store.remove(conn, this.record.id);
    } catch (error) {
      this.warn(
        `could not remove headroom's record of the changes from the server (${(error as Error).message}); the next command will find the values back and drop it`,
      );
    }
    rmSync(this.file, { force: true });
  }
}

/** A killed client's server session ends a moment after the client: a live holder gets that long. */
const HOLDER_GRACE_MS = 2_000;

async function holderAlive(store: PendingStore, conn: Connection, holder: string): Promise<boolean> {
  const deadline = Date.now() + HOLDER_GRACE_MS;
  while (await store.holderAlive(conn, holder)) {
    if (Date.now() > deadline) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

async function takeHold(store: PendingStore, conn: Connection, name: string): Promise<string | undefined> {
  // A command killed a moment ago still holds it until the server sees its session end.
  const deadline = Date.now() + HOLDER_GRACE_MS;
  for (;;) {
    const holder = await store.hold(conn, name);
    if (holder === undefined || Date.now() > deadline) return holder;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The holds a command takes on the server-wide settings it changes; the server lets them go if it dies. */
export interface SettingHolds {
  release(conn: Connection): Promise<void>;
}

function whereIs(target: Target): string {
  const server = serverTargetOf(target);
  return server ? `${server.host}:${server.port}` : 'the server';
}

function commandOf(record: PendingRecord): string {
  return `headroom ${record.command === undefined ? '' : `${record.command} `}on ${record.client}`;
}

/**
 * Takes the hold on each server-wide setting about to be changed, before anything is changed, and
 * refuses (UserError) one that another live headroom command holds, naming that command: two
 * commands changing one setting would each put back the other's value, leaving the server at
 * neither its old value nor a durable one. The hold is the driver's (a lock the server drops with
 * the session), checked against the records too, which the whole server sees where a lock is
 * narrower (PostgreSQL's are per database).
 */
export async function holdSettings(driver: Driver, conn: Connection, target: Target, asked: readonly SettingAsked[]): Promise<SettingHolds> {
  const store = driver.pendingStore;
  const server = serverKey(target);
  if (!store || !server) throw new Error(`${driver.dbms} keeps no record of changes that outlive a connection`);
  const held: string[] = [];
  const holds: SettingHolds = {
    async release(conn) {
      for (const name of held.splice(0)) await store.release(conn, name).catch(() => undefined);
    },
  };
  const refusal = async (setting: SettingAsked, holder: string, record: PendingRecord | undefined): Promise<UserError> => {
    const change = record?.changes.find((c) => c.kind === 'global' && c.name === setting.name.toLowerCase());
    const session = record ? `server session ${holder.split('@')[0]}` : await store.describeSession(conn, holder);
    const by = record ? `${commandOf(record)} (${session})` : `another headroom command (${session})`;
    const what = change ? `: it set it to ${change.set} at ${record!.writtenAt} and puts ${change.previous} back when it ends` : '';
    return new UserError(
      `--set ${setting.name}=${setting.value}: ${by} holds ${setting.name} on ${whereIs(target)}${what}`,
      `run once it has ended, since two commands changing one server-wide setting put back each other's values; if it is gone and its server session lingers: ${store.endSessionStatement(holder)}`,
    );
  };
  try {
    for (const setting of asked) {
      const holder = await takeHold(store, conn, setting.name.toLowerCase());
      if (holder === undefined) {
        held.push(setting.name.toLowerCase());
        continue;
      }
      const records = [...(await recordsFound(store, conn, server)).values()].map((r) => r.record);
      throw await refusal(
        setting,
        holder,
        records.find((r) => r.holder === holder),
      );
    }
    const own = await store.holder(conn);
    for (const { record } of (await recordsFound(store, conn, server)).values()) {
      if (record.holder === own) continue;
      const setting = asked.find((s) => record.changes.some((c) => c.kind === 'global' && c.name === s.name.toLowerCase()));
      if (setting && (await holderAlive(store, conn, record.holder))) throw await refusal(setting, record.holder, record);
    }
  } catch (error) {
    await holds.release(conn);
    throw error;
  }
  return holds;
}

/** This server's records, the client's files and the server's own, by id; a string: why the server's cannot be read. */
async function recordsFound(
  store: PendingStore,
  conn: Connection,
  server: string,
  log?: (message: string) => void,
): Promise<Map<string, { record: PendingRecord; files: string[] }>> {
  const found = new Map<string, { record: PendingRecord; files: string[] }>();
  for (const { record, file } of clientRecords(server)) found.set(record.id, { record, files: [...(found.get(record.id)?.files ?? []), file] });
  const onServer = await store.read(conn);
  if (typeof onServer === 'string') log?.(`${onServer}; a superuser can put them back with: headroom restore-settings --db URL`);
  else for (const record of onServer) if (!found.has(record.id)) found.set(record.id, { record, files: [] });
  return found;
}

export function sameValue(now: string | undefined, value: string | null): boolean {
  return value === null ? now === undefined : now !== undefined && now.trim().toLowerCase() === value.trim().toLowerCase();
}

/**
 * Looks for changes a headroom command left on this server (the client's records and the
 * server's) and puts back each one still at the value headroom set. One changed since by someone
 * else is left alone, said so, and its record dropped: the value in force is then theirs. Changes
 * of a command still running (its server session lives) are not touched. Returns how many records
 * were found.
 */
export async function settlePendingChanges(driver: Driver, conn: Connection, target: Target, log: (message: string) => void): Promise<number> {
  const server = serverKey(target);
  const store = driver.pendingStore;
  if (!server || !store) return 0;
  const found = await recordsFound(store, conn, server, log);
  for (const { record, files } of found.values()) {
    const by = `by ${commandOf(record)} at ${record.writtenAt}`;
    if (await holderAlive(store, conn, record.holder)) {
      log(
        `left in place: ${record.changes.map((c) => `${describeChange(c)}=${c.set}`).join(', ')}, set ${by}, which is still running (server session ${record.holder})`,
      );
      continue;
    }
    let settled = true;
    for (const change of [...record.changes].reverse()) {
      const byHand = store.restoreStatements(change).join('; ');
      if (change.kind === 'table' && change.database !== (await store.database(conn))) {
        log(
          `${describeChange(change)} was left at ${change.set} ${by}; run headroom restore-settings with --db naming database ${change.database}, or by hand there: ${byHand}`,
        );
        settled = false;
        continue;
      }
      const now = await store.inForce(conn, change);
      if (sameValue(now, change.set)) {
        try {
          for (const sql of store.restoreStatements(change)) await conn.query(sql);
          log(`put ${describeChange(change)} back to ${change.previous}: it was left at ${change.set} ${by}, which ended before it could put it back`);
        } catch (error) {
          log(
            `could not put ${describeChange(change)} back to ${change.previous} (left at ${change.set} ${by}): ${(error as Error).message}; by hand: ${byHand}`,
          );
          settled = false;
        }
      } else if (!sameValue(now, change.restoreTo)) {
        const found = `it is ${now ?? 'unset'} now, not the ${change.set} set ${by}, so it was changed since`;
        log(`left ${describeChange(change)} alone: ${found}; headroom drops its record (to go back to ${change.previous} by hand: ${byHand})`);
      }
    }
    if (!settled) continue;
    await store.remove(conn, record.id);
    for (const file of files) rmSync(file, { force: true });
  }
  return found.size;
}
