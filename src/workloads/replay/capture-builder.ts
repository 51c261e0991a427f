import type { CaptureFile, CapturedSession, CapturedStatement, CaptureSkipped, CaptureSource } from './capture-file.js';
import { CAPTURE_FORMAT, CAPTURE_VERSION } from './capture-file.js';
import { statementKind } from './statement-kind.js';
import { autocommitSetting, summarize } from './capture-summary.js';

/** What every log parser hands the builder for one statement. */
export interface LoggedStatement {
  /** When the log line was written, in milliseconds since the epoch. */
  loggedAtMs: number;
  sql: string;
  params?: (string | null)[];
  durationMs?: number;
  /** The line was written when the statement ended (log_min_duration_statement's `duration: ... statement:`): its start is the time less the duration. */
  endTimed?: boolean;
  error?: string;
  from: string;
}

interface SessionState {
  id: string;
  user?: string;
  database?: string;
  /** Its connection was logged: its settings, prepared statements and transactions all lie in the log. */
  connectedInLog: boolean;
  statements: (CapturedStatement & { startMs: number })[];
  /** The last statement was logged as it started and its `duration:` line may still come. */
  awaitingDuration: boolean;
}

/** Why statements of sessions begun before the log are left out. */
export const BEFORE_THE_LOG = 'statements of sessions whose start lies before the log (their settings, prepared statements and open transaction are not in it)';

/**
 * Collects what the parsers read, session by session, and makes the capture file of it. The
 * parsers know their log's layout; the builder knows what a capture keeps: which sessions count,
 * what is skipped and why (with the first place), and the times relative to the first statement.
 */
export class CaptureBuilder {
  private readonly sessions = new Map<string, SessionState>();
  private readonly finished: SessionState[] = [];
  private readonly skips = new Map<string, CaptureSkipped>();
  private readonly notes = new Set<string>();
  private sawConnection = false;
  private firstLoggedMs: number | undefined;

  /** A connection the log shows: a new session under `key` (a key seen before was an earlier session). */
  connect(key: string, id: string, who: { user?: string; database?: string } = {}): void {
    this.end(key);
    this.sawConnection = true;
    this.sessions.set(key, { id, ...who, connectedInLog: true, statements: [], awaitingDuration: false });
  }

  /** The user and database a later line of the connection names (PostgreSQL's `connection authorized`). */
  identify(key: string, who: { user?: string; database?: string }): void {
    const session = this.sessions.get(key);
    if (!session) return;
    if (who.user) session.user = who.user;
    if (who.database) session.database = who.database;
  }

  /** The session ended (a disconnection line, MariaDB's Quit); a later statement under its key is another session's. */
  end(key: string): void {
    const session = this.sessions.get(key);
    if (!session) return;
    this.sessions.delete(key);
    this.finished.push(session);
  }

  /** A session that never began (a refused connection): nothing of it is kept. */
  forget(key: string): void {
    this.sessions.delete(key);
  }

  statement(key: string, id: string, logged: LoggedStatement, who: { user?: string; database?: string } = {}): void {
    this.firstLoggedMs ??= logged.loggedAtMs;
    let session = this.sessions.get(key);
    if (!session) {
      session = { id, ...who, connectedInLog: false, statements: [], awaitingDuration: false };
      this.sessions.set(key, session);
    }
    const startMs = logged.endTimed && logged.durationMs !== undefined ? logged.loggedAtMs - logged.durationMs : logged.loggedAtMs;
    session.statements.push({
      startMs,
      atS: 0,
      sql: logged.sql,
      ...(logged.params ? { params: logged.params } : {}),
      kind: statementKind(logged.sql),
      ...(logged.durationMs !== undefined ? { durationMs: logged.durationMs } : {}),
      ...(logged.error !== undefined ? { error: logged.error } : {}),
      from: logged.from,
    });
    session.awaitingDuration = !logged.endTimed && logged.durationMs === undefined;
  }

  /**
   * A bare `duration: X ms` line: with log_statement = all the statement was logged as it started and
   * its duration follows once it ends. It belongs to the session's last statement only while that one
   * waits for it; the parse and bind steps' own duration lines (log_duration) then find none waiting.
   */
  duration(key: string, durationMs: number): void {
    const session = this.sessions.get(key);
    if (!session?.awaitingDuration) return;
    session.statements.at(-1)!.durationMs = durationMs;
    session.awaitingDuration = false;
  }

  /**
   * An error the log recorded. With the failed statement's text (PostgreSQL's STATEMENT line or
   * csvlog's query column), it marks the session's last statement when that is the one; otherwise the
   * statement was never logged on its own (a syntax error fails before log_statement sees it) and is
   * kept from the error's text. Without the text it marks the last statement.
   */
  error(key: string, id: string, error: string, statement: string | undefined, loggedAtMs: number, from: string): void {
    const last = this.sessions.get(key)?.statements.at(-1);
    if (last && last.error === undefined && (statement === undefined || last.sql.trim() === statement.trim())) {
      last.error = error;
      return;
    }
    if (statement !== undefined) this.statement(key, id, { loggedAtMs, sql: statement, error, from });
  }

  /** Something the log held that the capture cannot keep; counted by reason with its first place. */
  skip(reason: string, from: string, count = 1): void {
    const known = this.skips.get(reason);
    if (known) known.count += count;
    else this.skips.set(reason, { reason, count, first: from });
  }

  /** A line for the user about how the log was read (printed with the summary, not kept in the file). */
  note(text: string): void {
    this.notes.add(text);
  }

  get noteLines(): string[] {
    return [...this.notes];
  }

  /**
   * The capture file. Sessions whose connection is not in the log are left out (counted) when the
   * log shows connections at all; a log written without log_connections shows none, and then every
   * session is kept and the user is told why that may not replay cleanly.
   */
  build(source: Omit<CaptureSource, 'capturedAt'>): CaptureFile {
    const all = [...this.finished, ...this.sessions.values()].filter((s) => s.statements.length > 0);
    const kept: SessionState[] = [];
    for (const session of all) {
      if (session.connectedInLog || !this.sawConnection) kept.push(session);
      else this.skip(BEFORE_THE_LOG, session.statements[0]!.from, session.statements.length);
    }
    if (!this.sawConnection && kept.length > 0)
      this.note('the log shows no connections (log_connections = off?): every session is kept, though one begun before the log may open mid-transaction');
    // Loops, not Math.min(...all): a capture holds more statements than a call has room for arguments.
    let firstMs = Infinity;
    let lastMs = -Infinity;
    for (const session of kept)
      for (const st of session.statements) {
        firstMs = Math.min(firstMs, st.startMs);
        lastMs = Math.max(lastMs, st.startMs + (st.durationMs ?? 0));
      }
    const relative = (ms: number): number => Math.round((ms - firstMs) * 1000) / 1e6;
    const sessions: CapturedSession[] = kept
      .map((session) => {
        const statements = session.statements.map(({ startMs, ...statement }) => ({ ...statement, atS: Math.max(0, relative(startMs)) }));
        return {
          id: session.id,
          ...(session.user ? { user: session.user } : {}),
          ...(session.database ? { database: session.database } : {}),
          startS: statements[0]!.atS,
          statements,
        };
      })
      // Sessions that start in the same millisecond by their ids: a capture of one load is one
      // file whichever log (stderr, csvlog) or line order it was read from.
      .sort((a, b) => a.startS - b.startS || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const durationS = kept.length > 0 ? relative(lastMs) : 0;
    const autocommitOff = sessions.filter((s) => s.statements.some((st) => autocommitSetting(st.sql) === false)).length;
    if (autocommitOff > 0)
      this.note(
        `${autocommitOff} session${autocommitOff === 1 ? '' : 's'} turned autocommit off: each counts its statements up to a COMMIT or ROLLBACK as one transaction, as the server runs them`,
      );
    return {
      format: CAPTURE_FORMAT,
      version: CAPTURE_VERSION,
      source: { ...source, capturedAt: new Date().toISOString() },
      startedAt: new Date(kept.length > 0 ? firstMs : (this.firstLoggedMs ?? 0)).toISOString(),
      durationS,
      sessions,
      skipped: [...this.skips.values()],
      summary: summarize(sessions, durationS),
    };
  }
}
