import { logLine } from './log-line.js';
import { unlessCut } from '../common/unless-cut.js';
import type { Session } from './session.js';

/** How long one statement may wait before it is told, and how far apart the later notices come. */
const FIRST_NOTICE_S = 5;
const LATER_NOTICE_S = 30;
/** How much of the statement a notice quotes. */
const QUOTED_CHARS = 120;
/** How long a notice waits for the lock's holders to be named before it goes without them. */
const HOLDERS_WAIT_MS = 2_000;

/** Where the command stands, as a notice says it, and what stopping it there leaves. */
export interface WaitStage {
  during: string;
  stopping: string;
}

export const BEFORE_THE_RUN: WaitStage = { during: 'before the run', stopping: 'nothing has been measured yet' };
/** headroom check only reads. */
export const CHECKING: WaitStage = { during: 'while checking the data', stopping: 'the check only reads' };

/**
 * Says so while the server leaves a statement unanswered: one of the work before a run (reading
 * the data's scale, checking the load, the sizes at the start), or of a check. A lock another
 * session holds on a workload's table (a long transaction, VACUUM FULL, a migration) or a server
 * that stopped answering would otherwise keep the command waiting in silence, where no timeout is
 * right: the lock may be let go in a minute, and a count over large data (the chain's operations)
 * may simply take that long. `conn`'s oldest pending request is looked at once a second; the same
 * one still pending after 5 s is told, then every 30 s. Returns the watch's end. Connections whose
 * requests block the thread (SQLite) are not watched.
 */
export function noticeUnanswered(session: Pick<Session, 'conn' | 'driver'>, stage: WaitStage): () => void {
  const { conn } = session;
  const pendingRequest = conn.pendingRequest?.bind(conn);
  if (pendingRequest === undefined) return () => {};
  let watched: string | undefined;
  let since = 0;
  let told = 0;
  let stopped = false;
  const timer = setInterval(() => {
    const pending = pendingRequest();
    const now = performance.now();
    if (pending === undefined || pending !== watched) {
      watched = pending;
      since = now;
      told = 0;
      return;
    }
    const waitedS = (now - since) / 1000;
    if (waitedS < FIRST_NOTICE_S + told * LATER_NOTICE_S) return;
    told++;
    void lockHolders(session).then((holders) => {
      // A notice that comes once the watch is over (the run started) would tell of the past.
      if (stopped) return;
      const why =
        holders.length > 0
          ? `it waits for a lock held by ${holders.join(' and ')}`
          : 'another session may hold a lock on a table it reads, the server may have stopped answering, or the statement takes this long here';
      logLine(
        `still waiting after ${Math.round(waitedS)} s for the server to answer ${quoted(pending)} ${stage.during}: ${why} (Ctrl-C stops; ${stage.stopping})`,
      );
    });
  }, 1000);
  // The watch alone never keeps the process alive.
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/**
 * Who holds the locks the session's connection waits for, where the DBMS tells (PostgreSQL), asked
 * over a connection of its own; none when it cannot tell within HOLDERS_WAIT_MS (no connection
 * free, a server that does not answer at all), so that the notice still comes.
 */
async function lockHolders({ conn, driver }: Pick<Session, 'conn' | 'driver'>): Promise<string[]> {
  const waiting = conn.serverSessionId?.();
  if (waiting === undefined || driver.observe(conn).lockHolders === undefined) return [];
  const ask = async (): Promise<string[]> => {
    const side = await driver.connect();
    try {
      return (await driver.observe(side).lockHolders?.(waiting)) ?? [];
    } finally {
      await side.close();
    }
  };
  // The cut's timer keeps no process alive; the waiting connection does, for as long as it waits.
  return unlessCut(() => ask().catch(() => []), AbortSignal.timeout(HOLDERS_WAIT_MS), []);
}

/** The statement on one line, cut to QUOTED_CHARS; a request that keeps no text is named as such. */
function quoted(sql: string): string {
  const line = sql.replace(/\s+/g, ' ').trim();
  if (line === '') return 'a request';
  return `"${line.length > QUOTED_CHARS ? `${line.slice(0, QUOTED_CHARS)}...` : line}"`;
}
