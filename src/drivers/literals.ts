/** A value a statement can carry in its text as an SQL literal. */
export type LiteralValue = string | number | bigint | boolean | null;

/**
 * A statement's text with each value written as an SQL literal between its pieces (pgbench's
 * simple protocol): numbers go in as they are, negative ones in parentheses (`- -1` would start a
 * comment); NULL stays NULL; anything else becomes a quoted string with quotes doubled, which the
 * server types as it would a parameter, so no value can change the statement's shape.
 * drivers/postgres/wire/literal-query.ts writes the same bytes straight into a Query message.
 */
export function literalText(pieces: readonly string[], values: readonly LiteralValue[]): string {
  let sql = pieces[0]!;
  for (let i = 0; i < values.length; i++) sql += literal(values[i]!) + pieces[i + 1]!;
  return sql;
}

/** One value's literal (see literalText). */
export function literal(v: LiteralValue): string {
  if (typeof v === 'number' || typeof v === 'bigint') return v < 0 ? `(${v})` : String(v);
  return v === null ? 'NULL' : `'${String(v).replace(/'/g, "''")}'`;
}
