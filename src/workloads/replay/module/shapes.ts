import type { CapturedStatement } from '../capture-file.js';

/** A value a shape's placeholder takes: a number written as a literal, or text (a quoted literal or a logged parameter). */
export type ShapeValue = string | number | null;

/** A statement's shape: its text with every literal or parameter a `?`, and the values that were there. */
export interface Shape {
  sql: string;
  values: ShapeValue[];
}

/** Before a `-` these make it a number's sign rather than a subtraction: `abalance + -2030`, `= -1`, `(-5`. */
const SIGN_CONTEXT = '(,=<>+-*/%';

const isDigit = (code: number): boolean => code >= 48 && code <= 57;
const isWordStart = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
/** \w: letters, digits, underscore. */
const isWord = (code: number): boolean => isWordStart(code) || isDigit(code);
/** White space as \s takes it: space, tab, line ends, form feed, vertical tab, and Unicode's spaces. */
const isSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13) || (code > 127 && /\s/.test(String.fromCharCode(code)));

/** The words that start a clause: the last one seen says which clause a number stands in. */
const CLAUSES = new Set(['select', 'from', 'where', 'by', 'having', 'limit', 'offset', 'values', 'set', 'on', 'returning', 'into', 'update']);

/**
 * A statement's shape. A statement logged with parameters ($1, $2 of PostgreSQL's extended protocol)
 * has its placeholders made `?` and takes its parameters as the values, in the order they appear;
 * one logged as text (the simple protocol, MariaDB's Query and Execute) has its string and number
 * literals made `?`. Quoted identifiers and comments are left as they are; white space outside
 * literals is made single spaces and a final `;` dropped, so that the same statement sent twice has
 * one shape.
 *
 * One pass over the text, copying runs of plain text whole and keeping the clause it is in as it
 * goes: a capture holds hundreds of thousands of statements, and a statement such as a many-row
 * INSERT thousands of literals, so nothing here looks back over the text built so far.
 */
export function shapeOf(statement: Pick<CapturedStatement, 'sql' | 'params'>): Shape {
  const { sql, params } = statement;
  const values: ShapeValue[] = [];
  // The text so far as pieces (white space a ' ' piece of its own): a string built by += would be
  // flattened again by each look at its end, and a statement of thousands of literals looks often.
  const out: string[] = [];
  const last = (): string => out[out.length - 1] ?? '';
  /** The last clause word of the plain text so far (CLAUSES), lower case. */
  let clause = '';
  /** What the plain text so far ends with, spaces aside: a comma, the word `by`, or something else. */
  let ending: ',' | 'by' | '' = '';
  for (let i = 0; i < sql.length; i++) {
    const code = sql.charCodeAt(i);
    const c = sql[i]!;
    if (c === '"' || c === '`') {
      const end = sql.indexOf(c, i + 1);
      const stop = end < 0 ? sql.length : end + 1;
      out.push(sql.slice(i, stop));
      ending = '';
      i = stop - 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      if (last() !== ' ') out.push(' ');
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end < 0 ? sql.length : end + 2;
      out.push(sql.slice(i, stop));
      ending = '';
      i = stop - 1;
    } else if (c === "'" && params === undefined) {
      let value = '';
      let j = i + 1;
      let from = j;
      for (; j < sql.length; j++) {
        if (sql[j] !== "'") continue;
        if (sql[j + 1] !== "'") break;
        value += sql.slice(from, j + 1);
        j++;
        from = j + 1;
      }
      value += sql.slice(from, Math.min(j, sql.length));
      values.push(value);
      out.push('?');
      ending = '';
      i = j;
    } else if (c === '$' && params !== undefined && isDigit(sql.charCodeAt(i + 1)) && !(isWord(sql.charCodeAt(i - 1)) || sql[i - 1] === '$')) {
      let end = i + 1;
      while (isDigit(sql.charCodeAt(end))) end++;
      values.push(params[Number(sql.slice(i + 1, end)) - 1] ?? null);
      out.push('?');
      ending = '';
      i = end - 1;
    } else if (params === undefined && isDigit(code) && !(isWord(sql.charCodeAt(i - 1)) || sql[i - 1] === '$' || sql[i - 1] === '.')) {
      const literal = numberAt(sql, i);
      if (isWord(sql.charCodeAt(i + literal.length)) || ((ending === ',' || ending === 'by') && clause === 'by')) {
        // Part of a name that starts with a digit, or a column's position (GROUP BY 1, 2; ORDER BY 1):
        // not a value, and a placeholder there would group or sort by a constant.
        out.push(literal);
        ending = '';
        i += literal.length - 1;
        continue;
      }
      const before = last() === '-' ? lastSolid(out, out.length - 2).slice(-1) : '';
      const signed = before !== '' && SIGN_CONTEXT.includes(before);
      if (signed) out.pop();
      const text = (signed ? '-' : '') + literal;
      const number = Number(text);
      values.push(Number.isSafeInteger(number) || (literal.includes('.') && String(number) === text) ? number : text);
      out.push('?');
      ending = '';
      i += literal.length - 1;
    } else if (isSpace(code)) {
      if (last() !== ' ') out.push(' ');
    } else if (isWordStart(code)) {
      // A name or key word, whole: [A-Za-z_][A-Za-z0-9_$]* (a digit or $ in it is part of it).
      let end = i + 1;
      while (end < sql.length && (isWord(sql.charCodeAt(end)) || sql[end] === '$')) end++;
      const name = sql.slice(i, end);
      out.push(name);
      // A key word is short: a longer name is none, nor is one with a digit or $ in it (GROUP1).
      const lower = end - i <= 9 ? name.toLowerCase() : '';
      if (CLAUSES.has(lower)) clause = lower;
      ending = lower === 'by' ? 'by' : '';
      i = end - 1;
    } else {
      out.push(c);
      ending = c === ',' ? ',' : '';
    }
  }
  let shaped = out.join('').trim();
  if (shaped.endsWith(';')) shaped = shaped.slice(0, -1).trimEnd();
  return { sql: shaped, values };
}

/** The number literal at `i`: digits, a fraction, an exponent. */
function numberAt(sql: string, i: number): string {
  let end = i;
  while (isDigit(sql.charCodeAt(end))) end++;
  if (sql[end] === '.' && isDigit(sql.charCodeAt(end + 1))) {
    end++;
    while (isDigit(sql.charCodeAt(end))) end++;
  }
  if (sql[end] === 'e' || sql[end] === 'E') {
    let exponent = end + 1;
    if (sql[exponent] === '+' || sql[exponent] === '-') exponent++;
    if (isDigit(sql.charCodeAt(exponent))) {
      end = exponent;
      while (isDigit(sql.charCodeAt(end))) end++;
    }
  }
  return sql.slice(i, end);
}

/** The last piece at or before `from` that is not white space ('' when there is none). */
function lastSolid(pieces: readonly string[], from: number): string {
  let i = from;
  while (i >= 0 && pieces[i] === ' ') i--;
  return i < 0 ? '' : pieces[i]!;
}
