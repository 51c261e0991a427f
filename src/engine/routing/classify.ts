/**
 * Whether a statement only reads, decided once when it is prepared. Conservative: anything but a
 * plain SELECT (or WITH ... SELECT without a data-changing part), and any SELECT that locks rows
 * or calls a sequence, counts as a write and stays on the primary.
 */
export function readsOnly(sql: string): boolean {
  const text = sql
    .replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ')
    .trim()
    .toLowerCase();
  if (!/^(select|with)\b/.test(text)) return false;
  return !/\b(insert|update|delete|merge|into|for\s+(update|share|no\s+key\s+update|key\s+share)|lock\s+in\s+share\s+mode|nextval|setval|lastval|pg_advisory|get_lock)\b/.test(
    text,
  );
}
