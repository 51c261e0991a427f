/**
 * The capture file: a real load recorded from a server's own logs (`headroom capture`), which
 * `headroom replay` plays back against a copy of the database. `headroom capture` writes it and
 * `headroom replay` reads it; nothing else is shared between them, so both sides keep to these
 * types. Times are seconds from the first captured statement's start, so a capture can be replayed
 * at any speed by dividing them.
 */

/** The file's first field says what it is; a reader refuses any other format or a newer version. */
export const CAPTURE_FORMAT = 'headroom-capture';
export const CAPTURE_VERSION = 1;

/** How a statement is counted in the summary (reads and writes) and how replay treats it. */
export type StatementKind = 'select' | 'insert' | 'update' | 'delete' | 'begin' | 'commit' | 'rollback' | 'other';

/** Where the load was recorded: enough to refuse replaying it onto the server it came from. */
export interface CaptureSource {
  dbms: 'postgres' | 'mariadb';
  /** The log's form: PostgreSQL's stderr or csvlog, MariaDB's general log file or mysql.general_log table. */
  kind: 'stderr' | 'csvlog' | 'general-log-file' | 'general-log-table';
  /** The log files read (absolute paths), or the table's server. */
  files: string[];
  /**
   * The server the log belongs to, where capture was told (`--server`) or read it from the table:
   * PostgreSQL's system identifier (pg_control_system()) or MariaDB's @@server_uuid / @@hostname:port,
   * with the host and port it was reached at. No password is ever kept.
   */
  server?: { systemId?: string; host?: string; port?: number };
  /** When the capture file was written (ISO 8601). */
  capturedAt: string;
}

export interface CapturedStatement {
  /** Its start, in seconds from the capture's first statement (the log's time less its duration where the log times the end). */
  atS: number;
  /** The statement text as the server received it (placeholders $1 / ? left in place when it came with parameters). */
  sql: string;
  /** The bound parameters of an extended-protocol or prepared execution, as text; null for SQL NULL. */
  params?: (string | null)[];
  kind: StatementKind;
  /** The duration the log gave, where it gave one. */
  durationMs?: number;
  /** The rows the log says it returned or changed, where it says (MariaDB's slow log, PostgreSQL's auto_explain). */
  rows?: number;
  /** The error the log recorded for it (SQLSTATE and message), where it failed when recorded. */
  error?: string;
  /** Where it was read: `file:line`. */
  from: string;
}

export interface CapturedSession {
  /** The log's session id (PostgreSQL's %c, MariaDB's thread id). */
  id: string;
  user?: string;
  database?: string;
  /** Its first statement's start, in seconds from the capture's first statement. */
  startS: number;
  /** In the order the server ran them. */
  statements: CapturedStatement[];
}

/** Statements the log held that the capture could not keep, by reason (COPY data, an execute whose parameters were not logged). */
export interface CaptureSkipped {
  reason: string;
  count: number;
  /** The first one: `file:line`. */
  first: string;
}

export interface CaptureSummary {
  sessions: number;
  statements: number;
  byKind: Record<StatementKind, number>;
  /** Selects, and inserts + updates + deletes. */
  reads: number;
  writes: number;
  /** Transactions: explicit BEGIN ... COMMIT / ROLLBACK blocks, and statements outside one (each its own). */
  transactions: number;
  /** Statements started in each second of the recorded period, from its first. */
  perSecond: number[];
}

export interface CaptureFile {
  format: typeof CAPTURE_FORMAT;
  version: typeof CAPTURE_VERSION;
  source: CaptureSource;
  /** The wall-clock time of the first captured statement's start (ISO 8601, as the log gave it). */
  startedAt: string;
  /** From the first statement's start to the last statement's end, in seconds. */
  durationS: number;
  sessions: CapturedSession[];
  skipped: CaptureSkipped[];
  summary: CaptureSummary;
}
