import type { CaptureFile, StatementKind } from '../capture-file.js';
import { autocommitSetting } from '../capture-summary.js';
import { shapeOf, type ShapeValue } from './shapes.js';

/** One transaction shape: its statements' shapes, how it ended, how often it ran, and values it ran with. */
export interface TransactionShape {
  statements: { sql: string; kind: StatementKind }[];
  /** An explicit block (BEGIN ... COMMIT, or statements under autocommit = 0), and whether it ended in ROLLBACK. */
  block: boolean;
  rolledBack: boolean;
  count: number;
  /** Recorded values, one entry per run: each statement's values in order. */
  samples: ShapeValue[][][];
}

export interface TransactionMix {
  shapes: TransactionShape[];
  /** Recorded transactions in all, and those left out: any statement failed, or one is not DML (DDL, SET, utility). */
  recorded: number;
  failed: number;
  notDml: number;
  /** Blocks the log ends inside: never seen to commit. */
  unfinished: number;
}

/** Values kept per shape: enough to draw from without making the module large. */
export const MAX_SAMPLES = 500;

const DML: ReadonlySet<StatementKind> = new Set(['select', 'insert', 'update', 'delete']);

/**
 * The capture's transactions grouped by shape: a BEGIN ... COMMIT/ROLLBACK block (or, under MariaDB's
 * autocommit = 0, the statements up to COMMIT) is one transaction and its shape the sequence of its
 * statements' shapes; a statement outside one is a transaction of its own. Transactions with a failed
 * statement, or with a statement that is not DML (DDL, SET, VACUUM, USE), are counted and left out:
 * run again and again as a workload they would fail or change the schema.
 */
export function transactionMix(capture: CaptureFile): TransactionMix {
  const byKey = new Map<string, TransactionShape>();
  let recorded = 0;
  let failed = 0;
  let notDml = 0;
  let unfinished = 0;
  for (const session of capture.sessions) {
    let open: { statements: { sql: string; kind: StatementKind; values: ShapeValue[] }[]; failed: boolean; notDml: boolean } | undefined;
    let autocommit = true;
    const close = (rolledBack: boolean, block: boolean): void => {
      if (!open) return;
      recorded++;
      if (open.failed) failed++;
      else if (open.notDml || open.statements.length === 0) notDml++;
      else {
        const key = `${block ? 'B' : 'S'}${rolledBack ? 'R' : 'C'}\n${open.statements.map((s) => s.sql).join('\n')}`;
        let shape = byKey.get(key);
        if (!shape) {
          shape = { statements: open.statements.map(({ sql, kind }) => ({ sql, kind })), block, rolledBack, count: 0, samples: [] };
          byKey.set(key, shape);
        }
        shape.count++;
        if (shape.samples.length < MAX_SAMPLES) shape.samples.push(open.statements.map((s) => s.values));
      }
      open = undefined;
    };
    let inBlock = false;
    for (const statement of session.statements) {
      const setting = autocommitSetting(statement.sql);
      if (setting !== undefined) {
        // A session setting, not part of any transaction's work: it decides how the next ones group.
        autocommit = setting;
        continue;
      }
      if (statement.kind === 'begin') {
        close(false, inBlock);
        open = { statements: [], failed: statement.error !== undefined, notDml: false };
        inBlock = true;
        continue;
      }
      if (statement.kind === 'commit' || statement.kind === 'rollback') {
        if (open && statement.error !== undefined) open.failed = true;
        close(statement.kind === 'rollback', true);
        inBlock = false;
        continue;
      }
      if (!open) {
        open = { statements: [], failed: false, notDml: false };
        inBlock = !autocommit;
      }
      const shape = shapeOf(statement);
      open.statements.push({ sql: shape.sql, kind: statement.kind, values: shape.values });
      if (statement.error !== undefined) open.failed = true;
      // Several statements in one text (a simple-protocol query) cannot be prepared as one.
      if (!DML.has(statement.kind) || /;/.test(shape.sql.replace(/'(?:[^']|'')*'|"[^"]*"/g, ''))) open.notDml = true;
      if (!inBlock) close(false, false);
    }
    // A block the log ends inside was never seen to commit: it is not a transaction of the load's.
    if (open && inBlock) {
      recorded++;
      unfinished++;
    }
  }
  const shapes = [...byKey.values()].sort((a, b) => b.count - a.count);
  return { shapes, recorded, failed, notDml, unfinished };
}
