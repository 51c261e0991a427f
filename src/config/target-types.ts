import type { DbmsName } from '../drivers/driver.js';
import type { TlsSettings } from '../drivers/transport/tls.js';

/** The target with no --db and no DATABASE_URL (here, not in target.ts, so that --help loads no DBMS's URL grammar). */
export const DEFAULT_DB = 'sqlite:headroom.db';

export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const;
/** libpq's target_session_attrs. */
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

/** Where to connect, resolved from --db, then DATABASE_URL, then the embedded default. */
export type Target = SqliteTarget | ServerTarget;

export interface SqliteTarget {
  dbms: 'sqlite';
  file: string;
  /**
   * PRAGMA synchronous of every connection, from the URL's `?synchronous=` (absent: full). Set
   * explicitly because SQLite's own default differs between a new file and one already in WAL mode.
   */
  synchronous?: SqliteSynchronous;
}

export const SQLITE_SYNCHRONOUS = ['full', 'normal', 'off'] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number];

export interface ServerTarget {
  dbms: Exclude<DbmsName, 'sqlite'>;
  host: string;
  port: number;
  user: string;
  password: string | undefined;
  database: string;
  /**
   * Read replicas (or, for Galera, the other nodes) from the URL's `?replicas=host:port,...`;
   * absent when there are none. They share the primary's user, password and database.
   */
  replicas?: NodeAddress[];
  /**
   * PostgreSQL: further hosts of libpq's `host=a,b` (or `//a:1,b:2/`), tried in order when one
   * cannot be reached or does not suit targetSessionAttrs. Absent when there is one host.
   */
  fallbacks?: FallbackHost[];
  /** Per connection attempt (each host tried); absent: 10 s. */
  connectTimeoutMs?: number;
  /** PostgreSQL: application_name sent at startup; absent: headroom. */
  applicationName?: string;
  /** PostgreSQL: the startup packet's `options` (e.g. `-c synchronous_commit=off`), as libpq sends them. */
  options?: string;
  /** PostgreSQL: libpq's target_session_attrs; absent: any. */
  targetSessionAttrs?: TargetSessionAttrs;
  /** The password file the password was read from (for the hint of a failed login). */
  passwordFile?: string;
  /** TLS parameters as the URL (or service file) gave them, for the TLS code to parse (config/parameters.ts TLS_PARAMETERS). */
  tlsParameters?: Record<string, string>;
  /**
   * TLS from the URL's ssl* parameters (and PGSSL* variables): drivers/postgres/tls-options.ts,
   * drivers/mariadb/tls-options.ts. Absent: the DBMS client's default (PostgreSQL sslmode=prefer,
   * MariaDB no TLS); Firebird has none.
   */
  tls?: TlsSettings;
}

export interface NodeAddress {
  host: string;
  port: number;
}

export interface FallbackHost extends NodeAddress {
  /** From the password file for this host, when the URL and environment give none. */
  password?: string;
}
