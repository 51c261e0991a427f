/**
 * A statement's normalised shape: its literals and parameters written as `?`, its whitespace
 * collapsed and its keywords' case kept as written, so that the executions of one statement with
 * different values count together (as pg_stat_statements and the slow-log digests group them).
 */
export function statementShape(sql: string): string {
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'") {
      // A string literal, with '' inside it, becomes one placeholder (E'..' keeps its E out).
      let j = i + 1;
      while (j < sql.length && !(sql[j] === "'" && sql[j + 1] !== "'")) j += sql[j] === "'" ? 2 : 1;
      out += '?';
      i = j;
    } else if (c === '"' || c === '`') {
      const end = sql.indexOf(c, i + 1);
      const stop = end < 0 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end - 1;
    } else if (c === '$' && /[0-9]/.test(sql[i + 1] ?? '') && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? '')) {
      let j = i + 1;
      while (/[0-9]/.test(sql[j] ?? '')) j++;
      out += '?';
      i = j - 1;
    } else if (/[0-9]/.test(c) && !/[A-Za-z0-9_$.]/.test(sql[i - 1] ?? '')) {
      let j = i;
      while (/[0-9.eE]/.test(sql[j] ?? '') || ((sql[j] === '+' || sql[j] === '-') && /[eE]/.test(sql[j - 1] ?? ''))) j++;
      out += '?';
      i = j - 1;
    } else if (/\s/.test(c)) {
      if (!out.endsWith(' ')) out += ' ';
    } else {
      out += c;
    }
  }
  // A list of values is one shape however long: IN (?, ?, ?) as IN (?).
  return out
    .trim()
    .replace(/\(\s*\?(?:\s*,\s*\?)+\s*\)/g, '(?)')
    .replace(/\s*;$/, '');
}
