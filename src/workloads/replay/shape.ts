import type { CapturedStatement } from './capture-file.js';
import { shapeOf } from './module/shapes.js';

/**
 * A statement's normalised shape for replay's per-statement figures: the shape capture --module
 * gives it (literals and logged parameters as `?`, white space collapsed), with a list of values
 * one shape however long (IN (?, ?, ?) as IN (?)), so that the executions of one statement with
 * different values count together, as pg_stat_statements and the slow-log digests group them.
 */
export function statementShape(statement: Pick<CapturedStatement, 'sql' | 'params'>): string {
  return shapeOf(statement).sql.replace(/\(\s*\?(?:\s*,\s*\?)+\s*\)/g, '(?)');
}
