import { UserError } from '../errors.js';
import type { TlsSettings } from '../drivers/transport/tls.js';
import { connectTimeoutMs, sortParameters } from './parameters.js';
import type { NodeAddress, ServerTarget, Target } from './target-types.js';
import { nonEmpty, splitUrl, type UrlParts } from './url.js';

/**
 * What config/target.ts asks of each DBMS's part of a target (src/drivers/<dbms>/target.ts): the
 * URL grammar, environment variables and defaults stay with the DBMS, and config/target.ts picks
 * one by the URL's scheme from the table in src/drivers/targets.ts. This file is the leaf both
 * sides import, so that neither imports the other's way.
 */
export interface TargetGrammar<T extends Target = Target> {
  /** A bare scheme ("postgres") means this DBMS with everything from the environment; false when the URL must name more (SQLite's file). */
  bareName: boolean;
  /** The target from `rest`, what follows `scheme:` in `text` (the whole URL, for messages). */
  resolve(rest: string, text: string, env: Env, warn: Warn): T;
  /** The target as it may be printed or stored: never with the password (describeTarget). */
  describe(target: T): string;
}

export type Env = Readonly<Record<string, string | undefined>>;
export type Warn = (message: string) => void;

export const URL_HINT = 'use e.g. sqlite:./bench.db, postgres://user@host:5432/db, mariadb://user@host:3306/db or firebird://SYSDBA@host:3050//path/file.fdb';

/** A server DBMS's own part of resolving its URL; the rest (parameters, TLS, replicas) is the same for every server. */
export interface ServerGrammar<D extends ServerTarget['dbms']> {
  dbms: D;
  /** A replica's port when ?replicas= names none. */
  defaultPort: number;
  /** Refuses what the parsed URL may not hold for this DBMS, before its parameters are sorted. */
  check?(url: UrlParts | undefined): void;
  /** The target's fields from the URL's parts, its sorted parameters and the environment (replicas and TLS come after). */
  fields(url: UrlParts | undefined, own: ReadonlyMap<string, string>, tlsParameters: Record<string, string>, text: string, env: Env, warn: Warn): ServerFields;
  /** TLS from the merged TLS parameters (and the environment); undefined: none, or the client's default. */
  tls(given: URLSearchParams, env: Env): TlsSettings | undefined;
  /** Overrides the printed form (describeServer). */
  describe?(target: ServerTarget): string;
}

export type ServerFields = Omit<ServerTarget, 'dbms' | 'replicas'>;

/** A server DBMS's grammar: its own part, and what every server's URL shares. */
export function serverGrammar<D extends ServerTarget['dbms']>(own: ServerGrammar<D>): TargetGrammar<ServerTarget> {
  return {
    bareName: true,
    resolve: (rest, text, env, warn) => resolveServer(own, rest, text, env, warn),
    describe: own.describe ?? ((target) => describeServer(target)),
  };
}

function resolveServer<D extends ServerTarget['dbms']>(grammar: ServerGrammar<D>, rest: string, text: string, env: Env, warn: Warn): ServerTarget {
  const url = rest !== '' && rest !== '//' ? splitUrl(rest, text, URL_HINT) : undefined;
  grammar.check?.(url);
  const { own, tlsParameters } = sortParameters(grammar.dbms, url?.params ?? []);
  const target: ServerTarget = { dbms: grammar.dbms, ...grammar.fields(url, own, tlsParameters, text, env, warn) };
  // The TLS code reads its own parameters (and PGSSL* variables), merged from the URL and a service file.
  const tls = grammar.tls(new URLSearchParams(target.tlsParameters ?? {}), env);
  if (tls) target.tls = tls;
  const replicas = own.get('replicas');
  if (replicas !== undefined) target.replicas = parseReplicas(replicas, grammar.defaultPort);
  return target;
}

const REPLICAS_HINT = 'list them as ?replicas=host:port,host:port, e.g. postgres://u@10.0.0.1:5432/db?replicas=10.0.0.2:5432,10.0.0.3:5432';

/** `host:port,host:port` (a missing port means the DBMS's default). */
function parseReplicas(text: string, defaultPort: number): NodeAddress[] {
  if (text.trim() === '') throw new UserError('?replicas= lists no replica', REPLICAS_HINT);
  const nodes = text.split(',').map((part) => {
    const match = /^(\[[^\]]+\]|[^:\s]+)(?::(\d+))?$/.exec(part.trim());
    const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
    if (!match || port < 1 || port > 65535) throw new UserError(`"${part}" in ?replicas= is not host:port`, REPLICAS_HINT);
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  });
  return nodes;
}

/** A one-host server's URL (MariaDB, Firebird): its environment variables, defaults and database rule. */
export interface SingleHost {
  dbms: ServerTarget['dbms'];
  /** The DBMS client's usual environment variables, read when the URL lacks that part. */
  fromEnv: Partial<Record<'host' | 'port' | 'user' | 'password' | 'database', string>>;
  defaults: { port: number; user: string };
  /** The database from the URL's path (and the environment's); `text` is the URL, for messages. */
  database(path: string | undefined, fromEnv: string | undefined, text: string): string;
}

/** The URL's parts, then the DBMS's usual environment variables, then defaults. */
export function singleHostFields(
  url: UrlParts | undefined,
  own: ReadonlyMap<string, string>,
  tlsParameters: Record<string, string>,
  text: string,
  spec: SingleHost,
): ServerFields {
  if (url && url.hosts.length > 1)
    throw new UserError(`a ${spec.dbms} URL names one host, not ${url.hosts.length}`, 'replicas go in ?replicas=host:port,host:port');
  const { fromEnv, defaults } = spec;
  const portText = url?.hosts[0]?.port ?? nonEmpty(fromEnv.port);
  const port = portText === undefined ? defaults.port : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UserError(`port "${portText}" in the database URL is not a TCP port`, URL_HINT);
  }
  const user = url?.user ?? fromEnv.user ?? defaults.user;
  const database = spec.database(url?.path, fromEnv.database, text);
  const host = url?.hosts[0]?.host ?? fromEnv.host ?? '127.0.0.1';
  const target: ServerFields = { host, port, user, password: url?.password ?? fromEnv.password, database };
  const timeout = own.get('connect_timeout');
  if (timeout !== undefined) target.connectTimeoutMs = connectTimeoutMs(timeout);
  if (Object.keys(tlsParameters).length > 0) target.tlsParameters = tlsParameters;
  return target;
}

/**
 * The server target as it may be printed or stored: never with the password; with what changes
 * the connection's behaviour (fallback hosts, startup options, target_session_attrs). `hosts` and
 * `params` replace the host list and lead the parameters (MariaDB's socket).
 */
export function describeServer(target: ServerTarget, hosts?: string, params: string[] = []): string {
  // A PostgreSQL socket folder is written %2F-encoded, as libpq reads it.
  const host = (name: string): string => (name.startsWith('/') ? encodeURIComponent(name) : name.includes(':') ? `[${name}]` : name);
  const address = (node: NodeAddress): string => `${host(node.host)}:${node.port}`;
  const shown = hosts ?? [target, ...(target.fallbacks ?? [])].map(address).join(',');
  if (target.options !== undefined) params.push(`options=${encodeURIComponent(target.options)}`);
  if (target.targetSessionAttrs !== undefined) params.push(`target_session_attrs=${target.targetSessionAttrs}`);
  if (target.replicas) params.push(`replicas=${target.replicas.map((r) => `${r.host}:${r.port}`).join(',')}`);
  return `${target.dbms}://${target.user}@${shown}/${target.database}${params.length > 0 ? `?${params.join('&')}` : ''}`;
}
