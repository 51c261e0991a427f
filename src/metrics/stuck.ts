/** Where a terminal was when the run ended without it: see Terminal.abandon() in engine/terminal.ts. */
export interface StuckTerminal {
  terminal: number;
  /** The transaction type it was running (or, at the gate of a blocking driver, waiting to run). */
  transaction: string;
  /** Milliseconds since that transaction was due. */
  waitedMs: number;
  /**
   * statement: waiting on the server for `statement` ('' where the request keeps no text);
   * workload: in the workload's own code, no request pending (a module's promise that never settles);
   * turn: waiting for another terminal's transaction to let it in (one SQLite transaction at a time).
   */
  place: 'statement' | 'workload' | 'turn';
  statement?: string;
}

/** Where a stuck terminal was, in words: at the gate behind another's transaction, or as waitingOn() says. */
export function stuckPlace(stuck: StuckTerminal): string {
  return stuck.place === 'turn' ? "waiting for another terminal's transaction to end" : waitingOn(stuck.statement);
}

/** Where a stuck terminal waited, in words: the statement it sent, the server's answer, or the workload's own code. */
export function waitingOn(statement: string | undefined): string {
  if (statement === undefined) return "in the workload's own code with no statement pending (a promise that never settles)";
  return statement === '' ? 'waiting on the server for an answer' : `waiting on the server for: ${oneLineSql(statement)}`;
}

/** A statement on one line, cut where it would swamp the line it is part of. */
export function oneLineSql(sql: string): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}
