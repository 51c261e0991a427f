/**
 * Splits a pgbench script into its commands, as pgbench reads it: an SQL command runs, over as
 * many lines as it needs, up to a semicolon outside quotes, dollar quotes and comments (or up to
 * a \gset / \aset, which ends it instead; \\; is a semicolon that does not end it); a meta-command is a backslash word and its arguments up
 * to the end of the line (a backslash at the end of a line continues it).
 */
export interface RawCommand {
  kind: 'sql' | 'meta';
  /** SQL text without its semicolon, or the meta-command's argument text. */
  text: string;
  /** The meta-command's name, without the backslash. */
  name: string;
  line: number;
  /** 1-based column of the command's first character. */
  column: number;
  /** Line and column of each character of `text` (meta arguments may span continued lines). */
  positionOf(offset: number): { line: number; column: number };
  /** SQL ended by a meta-command (\gset, \aset) rather than a semicolon. */
  endedByMeta?: boolean;
  /** SQL with \\; in it: several queries sent together (the text has a plain semicolon there, as pgbench sends it). */
  compound?: boolean;
  /**
   * pgbench's name for the command in -r's report: an SQL command's text as written, its
   * semicolon (or the space before its \\gset) kept, up to its first line break and at most 127
   * bytes; a meta-command's line as written.
   */
  firstLine: string;
}

/** pgbench keeps 127 bytes of a command's first line (a 128-byte buffer); a character cut in two is dropped. */
const FIRST_LINE_BYTES = 127;

function firstLineOf(text: string): string {
  const line = text.split(/[\r\n]/, 1)[0]!;
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= FIRST_LINE_BYTES) return line;
  return bytes
    .subarray(0, FIRST_LINE_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

export function lexScript(source: string): RawCommand[] {
  const commands: RawCommand[] = [];
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const position = (offset: number): { line: number; column: number } => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - lineStarts[lo]! + 1 };
  };
  let i = 0;
  let sqlStart = -1;
  /** Where each \\; of the SQL in progress is: its backslash is dropped from the text. */
  let compoundAt: number[] = [];
  const endSql = (end: number, endedByMeta: boolean): void => {
    // As written, its semicolon kept (end is the semicolon's offset), \\; read as ;.
    let written = source.slice(sqlStart, endedByMeta ? end : Math.min(end + 1, source.length));
    for (const at of [...compoundAt].reverse()) written = written.slice(0, at - sqlStart) + written.slice(at - sqlStart + 1);
    let text = source.slice(sqlStart, end);
    let start = sqlStart + (text.length - text.trimStart().length);
    if (compoundAt.length > 0) {
      for (const at of compoundAt.reverse()) text = text.slice(0, at - sqlStart) + text.slice(at - sqlStart + 1);
      start = sqlStart + (text.length - text.trimStart().length);
    }
    text = text.trim();
    // A command of nothing but \\; separators has no query to send.
    if (text !== '' && !/^[;\s]*$/.test(text)) {
      const at = position(start);
      // Positions after a \\; are off by one column per separator before them (error messages only).
      const compound = compoundAt.length > 0 ? { compound: true } : {};
      const firstLine = firstLineOf(written.trimStart());
      commands.push({ kind: 'sql', text, name: '', ...at, positionOf: (o) => position(start + o), endedByMeta, ...compound, firstLine });
    }
    sqlStart = -1;
    compoundAt = [];
  };
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '-' && next === '-') {
      // A comment line between commands is dropped; inside SQL it stays part of the text.
      const end = source.indexOf('\n', i);
      if (sqlStart < 0) {
        i = end < 0 ? source.length : end + 1;
        continue;
      }
      i = end < 0 ? source.length : end;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
      continue;
    }
    if (c === '\\' && next === ';') {
      if (sqlStart < 0) sqlStart = i;
      compoundAt.push(i);
      i += 2;
      continue;
    }
    if (c === '\\') {
      if (sqlStart >= 0) endSql(i, true);
      const metaStart = i;
      const name = /^\\([A-Za-z]*)/.exec(source.slice(i))![1]!;
      let argStart = i + 1 + name.length;
      let end = argStart;
      // Arguments run to the end of the line; a trailing backslash joins the next line.
      for (;;) {
        const newline = source.indexOf('\n', end);
        const lineEnd = newline < 0 ? source.length : newline;
        const body = source.slice(end, lineEnd).replace(/\r$/, '');
        if (body.endsWith('\\') && newline >= 0) end = newline + 1;
        else {
          end = lineEnd;
          break;
        }
      }
      const raw = source.slice(argStart, end);
      const text = raw.replace(/\\\r?\n/g, '  ').replace(/\r$/, '');
      const at = position(metaStart);
      const firstLine = source.slice(metaStart, end).replace(/\r$/, '');
      commands.push({ kind: 'meta', text, name, ...at, positionOf: (o) => position(argStart + o), firstLine });
      i = end;
      continue;
    }
    if (sqlStart < 0) {
      if (/\s/.test(c)) {
        i++;
        continue;
      }
      sqlStart = i;
    }
    if (c === "'" || c === '"') {
      const close = source.indexOf(c, i + 1);
      i = close < 0 ? source.length : close + 1;
      continue;
    }
    if (c === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(source.slice(i));
      if (tag) {
        const close = source.indexOf(tag[0], i + tag[0].length);
        i = close < 0 ? source.length : close + tag[0].length;
        continue;
      }
    }
    if (c === ';') {
      endSql(i, false);
      i++;
      continue;
    }
    i++;
  }
  if (sqlStart >= 0) endSql(source.length, false);
  return commands;
}
