import { UserError } from '../errors.js';
import { redactUrl, strayAt } from './redact.js';

/**
 * A server URL after the scheme, split the way libpq splits a connection URI:
 * `//[user[:password]@][host[:port][,host[:port]...]][/path][?name=value&...]`. WHATWG's URL
 * cannot be used: it refuses libpq's several hosts, and reads `+` in a value as a space.
 * Every part is percent-decoded (so `%2Fvar%2Frun%2Fpostgresql` is a socket folder).
 */
export interface UrlParts {
  user: string | undefined;
  password: string | undefined;
  /** In the URL's order; an empty host or port is left out (the default applies). */
  hosts: { host: string | undefined; port: string | undefined }[];
  /** Everything after the slash that ends the host part, decoded; undefined when there is none. */
  path: string | undefined;
  /** Query parameters in the URL's order. */
  params: [name: string, value: string][];
}

/**
 * `rest` is what follows `scheme:` in `url`, the whole URL. A message shows the URL with its
 * password hidden, and quotes a part of it only where that part is shown: never a piece of a
 * password the URL did not delimit as one.
 */
export function splitUrl(rest: string, url: string, hint: string): UrlParts {
  const shown = redactUrl(url);
  const malformed = (why: string): UserError => new UserError(`malformed database URL "${shown}": ${why}`, hint);
  const shows = (part: string): boolean => part !== '' && shown.includes(part);
  const decode = (text: string, what: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw malformed(`${what} has a broken %-escape`);
    }
  };
  const body = rest.startsWith('//') ? rest.slice(2) : rest;
  if (strayAt(body) >= 0) {
    throw malformed(
      'it has an "@" after the host; percent-encode "@" in a database name or parameter name as %40, and "/", "?" and "&" in a password as %2F, %3F and %26',
    );
  }
  const queryAt = body.indexOf('?');
  const beforeQuery = queryAt < 0 ? body : body.slice(0, queryAt);
  const slashAt = beforeQuery.indexOf('/');
  const authority = slashAt < 0 ? beforeQuery : beforeQuery.slice(0, slashAt);
  const at = authority.lastIndexOf('@');
  let user: string | undefined;
  let password: string | undefined;
  if (at >= 0) {
    const userInfo = authority.slice(0, at);
    const colon = userInfo.indexOf(':');
    user = decode(colon < 0 ? userInfo : userInfo.slice(0, colon), 'the user');
    if (colon >= 0) password = decode(userInfo.slice(colon + 1), 'the password');
  }
  const hostList = authority.slice(at + 1);
  const hosts = hostList === '' ? [] : hostList.split(',').map((spec) => splitHost(spec, malformed, decode, shows));
  const path = slashAt < 0 ? undefined : decode(beforeQuery.slice(slashAt + 1), 'the path');
  const params: [string, string][] = [];
  if (queryAt >= 0) {
    for (const pair of body.slice(queryAt + 1).split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      if (eq <= 0) throw malformed(`${shows(pair) ? `"${pair}"` : 'a parameter'} is not name=value`);
      params.push([decode(pair.slice(0, eq), 'a parameter name'), decode(pair.slice(eq + 1), `parameter ${pair.slice(0, eq)}`)]);
    }
  }
  return { user: nonEmpty(user), password: nonEmpty(password), hosts, path: nonEmpty(path), params };
}

function splitHost(
  spec: string,
  malformed: (why: string) => UserError,
  decode: (text: string, what: string) => string,
  /** Whether the printed URL shows this part: a part it hides is a piece of a password, never quoted. */
  shows: (part: string) => boolean,
): UrlParts['hosts'][number] {
  // [IPv6]:port, or host:port where the host has no colon.
  const match = /^(\[[0-9a-fA-F:.%]+\]|[^:[\]]*)(?::(\d*))?$/.exec(spec);
  const hidden = 'its user and password are not followed by "@host" (percent-encode "/", "?" and "&" in a password as %2F, %3F and %26)';
  if (!match) throw malformed(shows(spec) ? `"${spec}" is not host:port` : hidden);
  const host = decode(match[1]!.replace(/^\[|\]$/g, ''), 'the host');
  if (/[\s@?#]/.test(host)) throw malformed(`the host ${shows(host) ? `"${host}"` : 'part'} has a character no host name has`);
  const port = match[2];
  if (port !== undefined && port !== '' && (Number(port) < 1 || Number(port) > 65535)) throw malformed(`port ${port} is not a TCP port`);
  return { host: nonEmpty(host), port: nonEmpty(port) };
}

/** An empty string as absent, as libpq and the MySQL clients read their settings. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
