import type { CapturedSession, CaptureSummary, StatementKind } from './capture-file.js';
import { STATEMENT_KINDS } from './capture-io.js';

/**
 * The capture's summary from its sessions. A transaction is an explicit BEGIN ... COMMIT/ROLLBACK
 * block, or a statement outside one (the server commits it on its own). A session that turned
 * autocommit off (MariaDB's `SET autocommit = 0`) opens a transaction with its first statement after
 * each COMMIT or ROLLBACK, as the server does, so its statements are not counted one transaction each.
 */
export function summarize(sessions: readonly CapturedSession[], durationS: number): CaptureSummary {
  const byKind = Object.fromEntries(STATEMENT_KINDS.map((kind) => [kind, 0])) as Record<StatementKind, number>;
  const perSecond = new Array<number>(Math.max(1, Math.ceil(durationS))).fill(0);
  let statements = 0;
  let transactions = 0;
  for (const session of sessions) {
    let inTransaction = false;
    let autocommit = true;
    for (const statement of session.statements) {
      statements++;
      byKind[statement.kind]++;
      const second = Math.max(0, Math.floor(statement.atS));
      while (perSecond.length <= second) perSecond.push(0);
      perSecond[second]!++;
      const setting = autocommitSetting(statement.sql);
      if (setting !== undefined) autocommit = setting;
      if (statement.kind === 'begin') {
        if (!inTransaction) transactions++;
        inTransaction = true;
      } else if (statement.kind === 'commit' || statement.kind === 'rollback') {
        inTransaction = false;
      } else if (!inTransaction) {
        transactions++;
        // With autocommit off the statement opens a transaction that lasts until COMMIT or ROLLBACK.
        inTransaction = !autocommit && setting === undefined;
      }
    }
  }
  return {
    sessions: sessions.length,
    statements,
    byKind,
    reads: byKind.select,
    writes: byKind.insert + byKind.update + byKind.delete,
    transactions,
    perSecond,
  };
}

/** `SET autocommit = 0|1|ON|OFF` (MariaDB's session setting), else undefined. */
export function autocommitSetting(sql: string): boolean | undefined {
  const match = /^\s*set\s+(?:session\s+|@@(?:session\.)?)?autocommit\s*(?:=|to)\s*'?(\w+)'?\s*;?\s*$/i.exec(sql);
  if (!match) return undefined;
  const value = match[1]!.toLowerCase();
  return value === '1' || value === 'on' || value === 'true';
}
