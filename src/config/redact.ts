import { conninfoParses, isConninfo, maskConninfo } from './conninfo.js';

/**
 * Hiding secrets in text headroom prints or stores: a URL's password (`postgres://app:***@db/bank`),
 * a password given as `?password=`, `password=` in a libpq connection string (quoted or not), and
 * the values of options that are secrets (`--trust`). Everything else stays readable: the host,
 * port, user, database and every other parameter. One function for every kind, so that the result's
 * command line, the URL parser's messages and the CLI's errors hide the same things the same way.
 */

/** Names whose value is a secret, in a URL query, a libpq connection string or an environment assignment. */
const SECRET_NAMES = ['password', 'passwd', 'pwd', 'sslpassword', 'ssl-passphrase', 'passphrase', 'pgpassword', 'mysql_pwd', 'isc_password', 'headroom_trust'];

/** A key whose value is a secret (libpq's password, a TLS key's passphrase). */
export function isSecretName(name: string): boolean {
  return SECRET_NAMES.includes(name.toLowerCase());
}

/** Options whose whole value is a secret. */
const SECRET_OPTIONS = new Set(['--trust']);

const MASK = '***';

/** A quoted value (libpq's '...' with \ escapes; an unterminated quote runs to the end), else a bare one. */
const QUOTED = String.raw`'(?:\\.|[^'\\])*(?:'|$)|"(?:\\.|[^"\\])*(?:"|$)`;
/** A bare value ends at the next `&name=` of a query, and in running text also at white space or a quote. */
const WHOLE_VALUE = new RegExp(String.raw`(?<![\w])(${SECRET_NAMES.join('|')})(\s*=\s*)(?:${QUOTED}|[^]*?(?=&[A-Za-z_][\w.-]*=|$))`, 'gi');
const TEXT_VALUE = new RegExp(
  String.raw`(?<![\w])(${SECRET_NAMES.join('|')})(\s*=\s*)(?:${QUOTED}|[^\s"'\x60<>]*?(?=&[A-Za-z_][\w.-]*=|[\s"'\x60<>]|$))`,
  'gi',
);
/** A URL in running text: its scheme and `//`, up to white space or a quote. */
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s"'\x60<>]*)/gi;
const SCHEME = /^([a-z][a-z0-9+.-]*:(?:\/\/)?)([^]*)$/i;

/** Running text (an error message, a log line) with every password hidden; a whole --db value that is a connection string as libpq reads it. */
export function redact(text: string): string {
  if (isConninfo(text) && conninfoParses(text)) return maskConninfo(text, isSecretName, MASK);
  return text.replace(URL_IN_TEXT, (_match, scheme: string, body: string) => scheme + maskUserinfo(body)).replace(TEXT_VALUE, `$1$2${MASK}`);
}

/** One URL, whole (`--db`'s value, with or without `//`), with its password hidden; any other text as redact() leaves it. */
export function redactUrl(url: string): string {
  const match = SCHEME.exec(url);
  if (!match) return redact(url);
  return (match[1]! + maskUserinfo(match[2]!)).replace(WHOLE_VALUE, `$1$2${MASK}`);
}

/** A command line as it may be stored (a result's config.argv): each argument redacted, a secret option's value hidden. */
export function redactArgv(argv: readonly string[]): string[] {
  return argv.map((arg, i) => {
    if (i > 0 && SECRET_OPTIONS.has(argv[i - 1]!) && !SECRET_OPTIONS.has(arg)) return MASK;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    if (eq < 0) return redactArgument(arg);
    const option = arg.slice(0, eq);
    return `${option}=${SECRET_OPTIONS.has(option) ? MASK : redactArgument(arg.slice(eq + 1))}`;
  });
}

function redactArgument(arg: string): string {
  // A libpq connection string is read as libpq reads it: a password with a quote or an escaped space in it is hidden whole.
  if (isConninfo(arg)) return maskConninfo(arg, isSecretName, MASK);
  return /^[a-z][a-z0-9+.-]*:[^\s]/i.test(arg) ? redactUrl(arg) : redact(arg);
}

/** `user:password@host...` with the password hidden: from the user's colon up to the "@" that ends the userinfo. */
function maskUserinfo(body: string): string {
  const at = userinfoEnd(body);
  if (at < 0) return body;
  const colon = body.indexOf(':');
  if (colon < 0 || colon > at) return body;
  return `${body.slice(0, colon)}:${MASK}${body.slice(at)}`;
}

/**
 * Where a URL's userinfo ends (the index of its "@" in `body`, what follows `scheme://`), or -1.
 * A well-formed URL (config/url.ts refuses the rest) ends it at the last "@" before the first
 * "/" or "?", as the parser reads it, so the hidden part is exactly the password it read. A URL
 * that is not well formed (a password with an unencoded "/", "?" or "&") ends it at the last
 * "@" that a host list follows, and that is not inside a query value: more may be hidden, no
 * part of the password shown.
 */
export function userinfoEnd(body: string): number {
  const authorityEnd = authorityEndOf(body);
  const at = body.slice(0, authorityEnd).lastIndexOf('@');
  if (isHostList(body.slice(at + 1, authorityEnd)) && strayAt(body) < 0) return at;
  const candidates = [...body.matchAll(/@/g)].map((m) => m.index);
  const beforeHost = (c: number): boolean => isHostList(body.slice(c + 1).split(/[/?]/)[0]!);
  const hosts = candidates.filter(beforeHost);
  for (const c of [...hosts].reverse()) {
    const inQueryValue = hosts.some((earlier) => earlier < c && /\?[^]*=/.test(body.slice(earlier, c)));
    if (!inQueryValue) return c;
  }
  return candidates.at(-1) ?? -1;
}

/** The end of the authority (userinfo and hosts): the first "/" or "?". */
function authorityEndOf(body: string): number {
  const end = body.search(/[/?]/);
  return end < 0 ? body.length : end;
}

/**
 * The index of an "@" after the authority that no well-formed URL has there: in the path, or in a
 * query pair's name (or a pair without "="); -1 when there is none. A query value may hold one
 * (`?sslrootcert=/home/a@b/ca.pem`). Such an "@" is most likely a password's whose "/", "?" or
 * "&" was not percent-encoded, which the parser would otherwise take for a host, path or parameter.
 */
export function strayAt(body: string): number {
  const authorityEnd = authorityEndOf(body);
  const queryAt = body.indexOf('?', authorityEnd);
  const inPath = body.slice(authorityEnd, queryAt < 0 ? undefined : queryAt).indexOf('@');
  if (inPath >= 0) return authorityEnd + inPath;
  if (queryAt < 0) return -1;
  let start = queryAt + 1;
  for (const pair of body.slice(queryAt + 1).split('&')) {
    const eq = pair.indexOf('=');
    const inName = (eq < 0 ? pair : pair.slice(0, eq)).indexOf('@');
    if (inName >= 0) return start + inName;
    start += pair.length + 1;
  }
  return -1;
}

/** host[:port][,host[:port]...] as config/url.ts splits it (IPv6 in brackets, a %-encoded socket folder). */
function isHostList(text: string): boolean {
  return text.split(',').every((spec) => /^(?:\[[0-9a-fA-F:.%]+\]|[^:[\]\s@?#/]*)(?::\d*)?$/.test(spec));
}
