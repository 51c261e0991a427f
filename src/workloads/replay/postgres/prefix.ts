import { UserError } from '../../../errors.js';

/** The log_line_prefix pgreplay's documentation asks for, and the form with %t that the same servers often have. */
export const PGREPLAY_PREFIX = '%m|%u|%d|%c|';
export const DEFAULT_PREFIXES = [PGREPLAY_PREFIX, '%t|%u|%d|%c|'] as const;

/** The fields a line's prefix gave. */
export interface PrefixFields {
  /** The time as written (%m, %t or %n). */
  time: string;
  user?: string;
  database?: string;
  /** %c, else %p: the session the line belongs to; absent on a line of no session (%q). */
  session?: string;
  /** %p where %c is absent: the session is then told apart by its connection lines. */
  byProcess: boolean;
  sqlState?: string;
}

export interface CompiledPrefix {
  text: string;
  /** Splits a line into its prefix's fields, its severity and its message; undefined when it does not start with the prefix. */
  match(line: string): { fields: PrefixFields; severity: string; message: string } | undefined;
}

const SEVERITIES = 'LOG|ERROR|FATAL|PANIC|WARNING|NOTICE|INFO|DEBUG[1-5]?|DETAIL|HINT|CONTEXT|STATEMENT|QUERY|LOCATION';
const ZONE = String.raw`(?: [A-Za-z0-9+\-:/_]+)?`;
const TIME = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`;

/** What each escape matches, and which field it fills (log_line_prefix's escapes, PostgreSQL 15). */
const ESCAPES: Record<string, { pattern: string; field?: 'time' | 'user' | 'database' | 'session' | 'pid' | 'sqlState' }> = {
  a: { pattern: '.*?' },
  u: { pattern: '.*?', field: 'user' },
  d: { pattern: '.*?', field: 'database' },
  r: { pattern: '.*?' },
  h: { pattern: '.*?' },
  b: { pattern: '.*?' },
  p: { pattern: String.raw`\d+`, field: 'pid' },
  P: { pattern: String.raw`\d*` },
  t: { pattern: TIME + ZONE, field: 'time' },
  m: { pattern: String.raw`${TIME}\.\d{3}${ZONE}`, field: 'time' },
  n: { pattern: String.raw`\d+\.\d{3}`, field: 'time' },
  i: { pattern: '.*?' },
  e: { pattern: '[0-9A-Z]{5}', field: 'sqlState' },
  c: { pattern: '[0-9a-f]+\\.[0-9a-f]+', field: 'session' },
  l: { pattern: String.raw`\d+` },
  s: { pattern: TIME + ZONE },
  v: { pattern: '.*?' },
  x: { pattern: String.raw`\d*` },
  Q: { pattern: String.raw`-?\d*` },
};

/**
 * Compiles a log_line_prefix into a matcher. Every escape PostgreSQL 15 knows is accepted (with its
 * padding, `%-10u`); the capture needs a time (%m, %t or %n) and a session (%c, or %p told apart by
 * connection lines). After %q the rest is absent on lines of no session (the postmaster's, the
 * checkpointer's), so it is optional there.
 */
export function compilePrefix(text: string): CompiledPrefix {
  let pattern = '';
  let optionalFrom: number | undefined;
  const fields: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '%') {
      pattern += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      continue;
    }
    const escape = /^-?\d*(.)/.exec(text.slice(i + 1));
    if (!escape) throw new UserError(`--prefix "${text}" ends with a lone %`, "give the server's log_line_prefix as it is in postgresql.conf");
    i += escape[0].length;
    const letter = escape[1]!;
    if (letter === '%') pattern += '%';
    else if (letter === 'q') {
      optionalFrom = pattern.length;
      pattern += '(?:';
    } else {
      const known = ESCAPES[letter];
      if (!known)
        throw new UserError(`--prefix "${text}" has %${letter}, which log_line_prefix does not know`, 'see log_line_prefix in the PostgreSQL documentation');
      // A padded value (%-10u) carries spaces around it.
      pattern += known.field ? `\\s*(${known.pattern})\\s*` : `\\s*${known.pattern}\\s*`;
      if (known.field) fields.push(known.field);
    }
  }
  if (optionalFrom !== undefined) pattern += ')?';
  if (!fields.includes('time'))
    throw new UserError(
      `--prefix "${text}" has no time (%m, %t or %n)`,
      'capture needs each statement\'s time: add %m to log_line_prefix, e.g. pgreplay\'s "%m|%u|%d|%c|"',
    );
  if (!fields.includes('session') && !fields.includes('pid'))
    throw new UserError(`--prefix "${text}" has no session (%c or %p)`, 'capture needs to know whose statement each line is: add %c to log_line_prefix');
  const regex = new RegExp(`^${pattern}(${SEVERITIES}):  (.*)$`, 's');
  return {
    text,
    match(line) {
      const m = regex.exec(line);
      if (!m) return undefined;
      const values: Partial<Record<string, string>> = {};
      fields.forEach((field, i) => (values[field] = m[i + 1]));
      const time = values['time'];
      if (time === undefined) return undefined;
      const session = values['session'] || values['pid'] || undefined;
      const named = (value: string | undefined): string | undefined =>
        value === undefined || value === '' || value === '[unknown]' ? undefined : value.trim();
      return {
        fields: {
          time,
          ...optional('user', named(values['user'])),
          ...optional('database', named(values['database'])),
          ...optional('session', session),
          byProcess: !fields.includes('session'),
          ...optional('sqlState', values['sqlState'] || undefined),
        },
        severity: m[fields.length + 1]!,
        message: m[fields.length + 2]!,
      };
    },
  };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/**
 * A PostgreSQL log time in milliseconds since the epoch: `2026-12-05 21:54:52.776 UTC` (%m, csvlog),
 * without the milliseconds (%t), or seconds since the epoch (%n). A zone given as UTC, GMT or an
 * offset is applied; any other name (log_timezone's abbreviation, CET) is read as UTC and the caller
 * is told, since only the times between statements matter to a replay. NaN when it is no time.
 */
export function parseLogTime(text: string): { ms: number; zoneUnknown?: string } {
  if (/^\d+\.\d+$/.test(text)) return { ms: Number(text) * 1000 };
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)(?: (\S+))?$/.exec(text.trim());
  if (!m) return { ms: NaN };
  const zone = m[3];
  const offset = zone === undefined || /^(UTC|GMT|Z|UCT)$/i.test(zone) ? 'Z' : /^[+-]\d\d(:?\d\d)?$/.test(zone) ? normalOffset(zone) : undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${offset ?? 'Z'}`);
  return offset === undefined ? { ms, zoneUnknown: zone! } : { ms };
}

function normalOffset(zone: string): string {
  const digits = zone.replace(':', '');
  return `${digits.slice(0, 3)}:${digits.slice(3, 5) || '00'}`;
}
