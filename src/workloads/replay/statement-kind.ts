import type { StatementKind } from './capture-file.js';

/**
 * A statement's kind from its text: the first keyword after any leading comments, as the server
 * would dispatch it. `WITH` is judged by the statement its common table expressions lead into, so
 * that `WITH t AS (...) UPDATE ...` counts as the write it is; `ROLLBACK TO SAVEPOINT` undoes part
 * of a transaction and does not end it, so it is `other`, as are savepoints and two-phase commits.
 */
export function statementKind(sql: string): StatementKind {
  const text = withoutLeadingComments(sql).toLowerCase();
  const words = text.split(/[\s;(]+/).filter(Boolean);
  const [first, second] = words;
  switch (first) {
    case 'select':
    case 'values':
    case 'table':
      return 'select';
    case 'insert':
    case 'replace':
      return 'insert';
    case 'update':
      return 'update';
    case 'delete':
      return 'delete';
    case 'begin':
      // MariaDB's `BEGIN NOT ATOMIC` opens a compound statement, not a transaction.
      return second === 'not' ? 'other' : 'begin';
    case 'start':
      return second === 'transaction' ? 'begin' : 'other';
    case 'commit':
    case 'end':
      return second === 'prepared' ? 'other' : 'commit';
    case 'rollback':
    case 'abort':
      return second === 'to' || second === 'prepared' || /\bto\s+savepoint\b/.test(text) ? 'other' : 'rollback';
    case 'with':
      return withKind(text);
    default:
      return 'other';
  }
}

/** The verb after the last common table expression's closing parenthesis (outside quotes, at depth 0). */
function withKind(text: string): StatementKind {
  let depth = 0;
  let quote: string | undefined;
  let afterClose = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) afterClose = i + 1;
    } else if (depth === 0 && afterClose >= 0 && /[a-z]/.test(c)) {
      const verb = /^[a-z]+/.exec(text.slice(i))![0];
      if (['select', 'insert', 'update', 'delete', 'values', 'table'].includes(verb)) return statementKind(text.slice(i));
      i += verb.length - 1;
    }
  }
  return 'select';
}

function withoutLeadingComments(sql: string): string {
  let text = sql.trimStart();
  for (;;) {
    if (text.startsWith('--') || text.startsWith('#')) {
      const end = text.indexOf('\n');
      text = end < 0 ? '' : text.slice(end + 1).trimStart();
    } else if (text.startsWith('/*')) {
      const end = text.indexOf('*/');
      text = end < 0 ? '' : text.slice(end + 2).trimStart();
    } else return text;
  }
}
