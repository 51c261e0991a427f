import type { ServerTarget } from '../../config/target.js';
import type { TargetSessionAttrs } from '../../config/target-types.js';
import { DbError } from '../errors.js';
import type { WireConnection } from './wire/connection.js';
import { PgServerError } from './wire/pg-error.js';

export interface HostAttempt {
  host: string;
  port: number;
  password: string | undefined;
}

/**
 * Connects as libpq does with several hosts and target_session_attrs: each host in turn until one
 * accepts the connection and suits the attributes (prefer-standby: a standby first, then any).
 * With one host and `any` this is the single connection attempt, nothing more. `open` rejects
 * with a classified DbError.
 */
export async function connectSuitable(config: ServerTarget, open: (host: HostAttempt) => Promise<WireConnection>): Promise<WireConnection> {
  const hosts: HostAttempt[] = [
    { host: config.host, port: config.port, password: config.password },
    // A password from the password file was the first host's: another host has its own line or none.
    ...(config.fallbacks ?? []).map((f) => ({
      host: f.host,
      port: f.port,
      password: f.password ?? (config.passwordFile === undefined ? config.password : undefined),
    })),
  ];
  const attrs = config.targetSessionAttrs ?? 'any';
  if (hosts.length === 1 && attrs === 'any') return open(hosts[0]!);
  const failures: string[] = [];
  // Each host's failure in libpq's words, as libpq lists them one after the other.
  const reports: string[] = [];
  let lastError: DbError | undefined;
  let mismatched = false;
  let refused = false;
  tries: for (const wanted of attrs === 'prefer-standby' ? (['standby', 'any'] as const) : [attrs]) {
    for (const host of hosts) {
      const where = host.host.startsWith('/') ? `${host.host} (port ${host.port})` : `${host.host}:${host.port}`;
      let wire: WireConnection;
      try {
        wire = await open(host);
      } catch (error) {
        lastError = error as DbError;
        failures.push(`${where}: ${(error as Error).message}`);
        if (lastError.report !== undefined) reports.push(lastError.report);
        // As libpq: a server that refuses the login ends the search, unless it cannot take connections yet (57P03, a standby starting up).
        refused = lastError.cause instanceof PgServerError && lastError.code !== '57P03';
        if (refused) break tries;
        continue;
      }
      const mismatch = await sessionMismatch(wire, wanted).catch(async (error: unknown) => {
        await wire.close();
        throw error;
      });
      if (mismatch === undefined) return wire;
      await wire.close();
      mismatched = true;
      failures.push(`${where}: ${mismatch}`);
    }
  }
  // One host that cannot be reached: its own error, with its own hint.
  if (!mismatched && (hosts.length === 1 || (refused && failures.length === 1)) && lastError) throw lastError;
  const message = `no host suits target_session_attrs=${attrs}: ${failures.join('; ')}`;
  if (!mismatched && lastError) {
    const report = reports.length === failures.length ? { report: reports.join('\n') } : {};
    throw new DbError(lastError.errorClass, message, lastError.code, lastError.hint, { cause: lastError, connecting: true, ...report });
  }
  throw new DbError('bad_request', message, undefined, `point --db at a server that is ${WANTED[attrs]}, or drop target_session_attrs`);
}

const WANTED: Record<TargetSessionAttrs, string> = {
  any: 'up',
  'read-write': 'read-write (a primary, not in default_transaction_read_only)',
  'read-only': 'read-only (a standby, or default_transaction_read_only=on)',
  primary: 'a primary',
  standby: 'a standby (in hot standby)',
  'prefer-standby': 'up',
};

/**
 * libpq's check of a new session against target_session_attrs: PostgreSQL 14 and later report
 * default_transaction_read_only and in_hot_standby at startup; older servers are asked.
 * Returns libpq's reason for a session that does not suit, or undefined.
 */
async function sessionMismatch(wire: WireConnection, wanted: TargetSessionAttrs): Promise<string | undefined> {
  if (wanted === 'any' || wanted === 'prefer-standby') return undefined;
  let readOnlyDefault = wire.parameters.get('default_transaction_read_only');
  let hotStandby = wire.parameters.get('in_hot_standby');
  if (readOnlyDefault === undefined || hotStandby === undefined) {
    const { rows } = await wire.simpleQuery(
      "SELECT CASE WHEN pg_catalog.pg_is_in_recovery() THEN 'on' ELSE 'off' END, current_setting('transaction_read_only')",
    );
    [[hotStandby, readOnlyDefault]] = rows as [[string, string]];
  }
  const standby = hotStandby === 'on';
  const readOnly = standby || readOnlyDefault === 'on';
  switch (wanted) {
    case 'read-write':
      return readOnly ? 'session is read-only' : undefined;
    case 'read-only':
      return readOnly ? undefined : 'session is not read-only';
    case 'primary':
      return standby ? 'server is in hot standby mode' : undefined;
    case 'standby':
      return standby ? undefined : 'server is not in hot standby mode';
  }
}
