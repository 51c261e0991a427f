/**
 * The result column names of a SELECT (or of an INSERT/UPDATE/DELETE ... RETURNING), read from
 * its select list as PostgreSQL names them: the alias after AS (or a bare alias), else the last
 * part of a column reference, else the function's name. \gset needs them and the driver contract
 * returns rows as arrays; a constant is "?column?", as the server names it (no variable's name,
 * so \gset stops the client as pgbench does); undefined marks a column whose name cannot be read
 * from the text (an unaliased expression or *), which \gset then refuses with a hint to alias it.
 */
export function columnNames(sql: string): (string | undefined)[] {
  const list = selectList(sql);
  return list === undefined ? [] : splitTopLevel(list).map(nameOf);
}

function selectList(sql: string): string | undefined {
  const masked = mask(sql);
  const returning = /\breturning\b/i.exec(masked);
  if (returning) return sql.slice(returning.index + returning[0].length);
  const select = /\bselect\b(\s+distinct\b)?/i.exec(masked);
  if (!select) return undefined;
  const start = select.index + select[0].length;
  const end = /\b(from|where|group|order|limit|union|having|window|into|for|offset|fetch|except|intersect)\b/i.exec(masked.slice(start));
  return sql.slice(start, end ? start + end.index : sql.length);
}

/** The text with quoted parts and parenthesised parts blanked out, so keyword searches see the top level only. */
function mask(sql: string): string {
  let out = '';
  let depth = 0;
  let quote: string | undefined;
  for (const c of sql) {
    if (quote) {
      if (c === quote) quote = undefined;
      out += ' ';
    } else if (c === "'" || c === '"') {
      quote = c;
      out += ' ';
    } else if (c === '(') {
      depth++;
      out += ' ';
    } else if (c === ')') {
      depth--;
      out += ' ';
    } else out += depth > 0 ? ' ' : c;
  }
  return out;
}

function splitTopLevel(list: string): string[] {
  const masked = mask(list);
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < masked.length; i++) {
    if (masked[i] === ',') {
      parts.push(list.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(list.slice(from));
  return parts.map((p) => p.trim());
}

/** PostgreSQL's identifier: its ident_start and ident_cont take any non-ASCII character as a letter. */
const IDENT = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*)`;

function nameOf(item: string): string | undefined {
  const alias = new RegExp(String.raw`(?:\bas\s+|[A-Za-z0-9_)'"\u0080-\uffff]\s+)(${IDENT})$`, 'i').exec(item);
  if (alias && !/^(end|null|true|false)$/i.test(alias[1]!)) return identifier(alias[1]!);
  const reference = new RegExp(String.raw`^(?:${IDENT}\.)*(${IDENT})$`).exec(item);
  if (reference) return reference[1] === '*' ? undefined : identifier(reference[1]!);
  const call = new RegExp(String.raw`^(${IDENT})\s*\(`).exec(item);
  if (call) return identifier(call[1]!);
  // A constant gets PostgreSQL's name for a column it cannot name otherwise.
  if (/^([+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?|'(?:[^']|'')*')$/i.test(item)) return '?column?';
  return undefined;
}

/** Unquoted identifiers fold to lower case, as PostgreSQL folds them in UTF-8 (A to Z only: "Ü" stays); quoted ones keep their case. */
function identifier(text: string): string {
  return text.startsWith('"') ? text.slice(1, -1).replace(/""/g, '"') : text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}
