import { UserError } from '../errors.js';

/**
 * libpq's key=value connection string ("host=db port=5432 dbname=bank user=app"), which psql,
 * pgbench and every libpq program take in place of a URL. Only PostgreSQL's clients read this
 * form, so a --db value of this shape means PostgreSQL; its keys are the parameters a postgres://
 * URL takes (config/parameters.ts).
 */

const HINT = 'write key=value pairs separated by spaces, e.g. "host=127.0.0.1 dbname=test", quoting a value with spaces: application_name=\'my app\'';

/** The text starts as a connection string does: a key and "=" (a URL starts with its scheme and ":"). */
export function isConninfo(text: string): boolean {
  return /^\s*[A-Za-z_][A-Za-z0-9_]*\s*=/.test(text);
}

/** One pair as written: the key, its value after unquoting, and where the value's text lies. */
interface ConninfoPair {
  key: string;
  value: string;
  valueStart: number;
  valueEnd: number;
}

/**
 * The pairs as libpq's parser reads them: separated by white space, space allowed around "=", a
 * value either a word or single-quoted, a backslash taking the next character as it is in both
 * (\' and \\ in quotes, \ and a space in a word). A message quotes no value, and no word that
 * follows one (it may be the rest of a password).
 */
export function conninfoPairs(text: string): [string, string][] {
  return scan(text).map((pair) => [pair.key, pair.value]);
}

/** The text is a connection string libpq would read (isConninfo tells only how it starts). */
export function conninfoParses(text: string): boolean {
  try {
    scan(text);
    return true;
  } catch {
    return false;
  }
}

function scan(text: string): ConninfoPair[] {
  const pairs: ConninfoPair[] = [];
  const refuse = (why: string): never => {
    throw new UserError(`invalid connection string: ${why}`, HINT);
  };
  let i = 0;
  const skipSpace = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  for (skipSpace(); i < text.length; skipSpace()) {
    const keyStart = i;
    while (i < text.length && text[i] !== '=' && !/\s/.test(text[i]!)) i++;
    const key = text.slice(keyStart, i);
    skipSpace();
    if (text[i] !== '=') {
      if (pairs.length > 0) refuse(`a word without "=" follows the value of "${pairs.at(-1)!.key}" (a value with a space must be quoted)`);
      refuse(`missing "=" after "${key}"`);
    }
    i++;
    skipSpace();
    const valueStart = i;
    let value = '';
    if (text[i] === "'") {
      for (i++; ; i++) {
        if (i >= text.length) refuse(`the value of "${key}" has no closing quote`);
        const ch = text[i]!;
        if (ch === '\\' && i + 1 < text.length) value += text[++i]!;
        else if (ch === "'") break;
        else value += ch;
      }
      i++;
    } else {
      for (; i < text.length && !/\s/.test(text[i]!); i++) value += text[i] === '\\' && i + 1 < text.length ? text[++i]! : text[i]!;
    }
    pairs.push({ key, value, valueStart, valueEnd: i });
  }
  return pairs;
}

/**
 * The connection string with the values of `secret` keys written as `mask`; a string that does
 * not parse hides everything after the first secret key's "=" (its value's end is unknown).
 */
export function maskConninfo(text: string, secret: (key: string) => boolean, mask: string): string {
  let pairs: ConninfoPair[];
  try {
    pairs = scan(text);
  } catch {
    const found = new RegExp(String.raw`(?:^|\s)(\w+)\s*=\s*`, 'g');
    for (let m = found.exec(text); m !== null; m = found.exec(text)) if (secret(m[1]!)) return text.slice(0, m.index + m[0].length) + mask;
    return text;
  }
  let shown = '';
  let at = 0;
  for (const pair of pairs) {
    if (!secret(pair.key)) continue;
    shown += text.slice(at, pair.valueStart) + mask;
    at = pair.valueEnd;
  }
  return shown + text.slice(at);
}

/**
 * The connection string as the postgres:// URL that means the same (every pair a parameter,
 * percent-encoded as the URL parser decodes it), so that one parser checks both forms.
 */
export function conninfoUrl(pairs: readonly (readonly [string, string])[]): string {
  return `postgres://?${pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&')}`;
}
