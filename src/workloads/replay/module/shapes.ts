import type { CapturedStatement } from '../capture-file.js';

/** A value a shape's placeholder takes: a number written as a literal, or text (a quoted literal or a logged parameter). */
export type ShapeValue = string | number | null;

/** A statement's shape: its text with every literal or parameter a `?`, and the values that were there. */
export interface Shape {
  sql: string;
  values: ShapeValue[];
}

/** Before a `-` these make it a number's sign rather than a subtraction: `abalance + -2030`, `= -1`, `(-5`. */
const SIGN_CONTEXT = /[(,=<>+\-*/%]$/;

/**
 * A statement's shape. A statement logged with parameters ($1, $2 of PostgreSQL's extended protocol)
 * has its placeholders made `?` and takes its parameters as the values, in the order they appear;
 * one logged as text (the simple protocol, MariaDB's Query and Execute) has its string and number
 * literals made `?`. Quoted identifiers and comments are left as they are; white space outside
 * literals is made single spaces and a final `;` dropped, so that the same statement sent twice has
 * one shape.
 */
export function shapeOf(statement: Pick<CapturedStatement, 'sql' | 'params'>): Shape {
  const { sql, params } = statement;
  const values: ShapeValue[] = [];
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === '"' || c === '`') {
      const end = sql.indexOf(c, i + 1);
      const stop = end < 0 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      out += ' ';
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end < 0 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === "'" && params === undefined) {
      let value = '';
      let j = i + 1;
      for (; j < sql.length; j++) {
        if (sql[j] !== "'") value += sql[j];
        else if (sql[j + 1] === "'") ((value += "'"), j++);
        else break;
      }
      values.push(value);
      out += '?';
      i = j;
    } else if (c === '$' && params !== undefined && /\d/.test(sql[i + 1] ?? '') && !/[\w$]/.test(sql[i - 1] ?? '')) {
      const digits = /^\d+/.exec(sql.slice(i + 1))![0];
      values.push(params[Number(digits) - 1] ?? null);
      out += '?';
      i += digits.length;
    } else if (params === undefined && /\d/.test(c) && !/[\w$.]/.test(sql[i - 1] ?? '')) {
      const literal = /^\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(sql.slice(i))![0];
      if (/\w/.test(sql[i + literal.length] ?? '') || inOrdinalList(out)) {
        // Part of a name that starts with a digit, or a column's position (GROUP BY 1, 2; ORDER BY 1):
        // not a value, and a placeholder there would group or sort by a constant.
        out += literal;
        i += literal.length - 1;
        continue;
      }
      const signed = out.endsWith('-') && SIGN_CONTEXT.test(out.slice(0, -1).trimEnd());
      if (signed) out = out.slice(0, -1);
      const text = (signed ? '-' : '') + literal;
      const number = Number(text);
      values.push(Number.isSafeInteger(number) || (literal.includes('.') && String(number) === text) ? number : text);
      out += '?';
      i += literal.length - 1;
    } else if (/\s/.test(c)) {
      if (!out.endsWith(' ')) out += ' ';
    } else out += c;
  }
  return { sql: out.trim().replace(/\s*;$/, ''), values };
}

/** Is the text so far inside a GROUP BY or ORDER BY list, right where a column's position may stand? */
function inOrdinalList(text: string): boolean {
  const trimmed = text.trimEnd();
  if (!trimmed.endsWith(',') && !/\bby$/i.test(trimmed)) return false;
  const words = trimmed.toLowerCase().match(/[a-z_]+/g) ?? [];
  const clause = [...words].reverse().find((word) => CLAUSES.has(word));
  return clause === 'by';
}

/** The words that start a clause: the last one seen says which clause a number stands in. */
const CLAUSES = new Set(['select', 'from', 'where', 'by', 'having', 'limit', 'offset', 'values', 'set', 'on', 'returning', 'into', 'update']);
