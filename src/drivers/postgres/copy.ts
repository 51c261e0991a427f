import type { SqlValue } from '../driver.js';

/** One value in COPY's text format: tab-separated, \N for NULL, backslash escapes. */
export function copyField(value: SqlValue | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : value;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Joins rows into COPY text chunks of about `chunkBytes` characters each. */
export function* copyChunks(rows: Iterable<readonly SqlValue[]>, chunkBytes = 1 << 16): Generator<string> {
  let chunk = '';
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < row.length; i++) line += (i === 0 ? '' : '\t') + copyField(row[i]);
    chunk += line + '\n';
    if (chunk.length >= chunkBytes) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}
