import type { CaptureFile, CapturedStatement, StatementKind } from './capture-file.js';
import { statementShape } from './shape.js';

/** Shapes beyond this many get no figures of their own: the rest count together per kind, so a capture of ad-hoc SQL keeps the result small. */
export const MAX_SHAPES = 300;
/** A type's name is its shape, cut to this many characters (the full text is in the replay record). */
const NAME_CHARS = 100;

export interface ReplayShape {
  /** The transaction type's name in the result. */
  name: string;
  kind: StatementKind;
  /** The normalised text, whole; "other KIND statements" for those past MAX_SHAPES. */
  shape: string;
  /** Executions in the capture. */
  captured: number;
  /** Of those, how many failed when recorded. */
  recordedErrors: number;
}

/** A capture read for replay: one type per shape, and each session's statements with their type. */
export interface ReplayPlan {
  shapes: ReplayShape[];
  /** Per session, in the capture's order: each statement and its shape's index. */
  sessions: { id: string; statements: { statement: CapturedStatement; type: number }[] }[];
  statements: number;
  byKind: Partial<Record<StatementKind, number>>;
}

export function replayPlan(capture: CaptureFile): ReplayPlan {
  const counts = new Map<string, { kind: StatementKind; count: number }>();
  const keyOf = (st: CapturedStatement): string => `${st.kind}\u0000${statementShape(st)}`;
  // Each statement's key, taken once: shaping is the planning's main cost.
  const keys = capture.sessions.map((session) => session.statements.map(keyOf));
  for (const [s, session] of capture.sessions.entries())
    for (const [i, st] of session.statements.entries()) {
      const key = keys[s]![i]!;
      const entry = counts.get(key) ?? { kind: st.kind, count: 0 };
      entry.count++;
      counts.set(key, entry);
    }
  // The most frequent shapes get their own figures; the rest share one per kind.
  const ranked = [...counts.entries()].sort((a, b) => b[1].count - a[1].count);
  const shapes: ReplayShape[] = [];
  const index = new Map<string, number>();
  const names = new Set<string>();
  const lumped = new Map<StatementKind, number>();
  for (const [key, { kind }] of ranked) {
    if (shapes.length < MAX_SHAPES) {
      const shape = key.slice(key.indexOf('\u0000') + 1);
      let name = shape.length > NAME_CHARS ? `${shape.slice(0, NAME_CHARS - 3)}...` : shape;
      for (let n = 2; names.has(name); n++) name = `${name.replace(/ #\d+$/, '')} #${n}`;
      names.add(name);
      index.set(key, shapes.length);
      shapes.push({ name, kind, shape, captured: 0, recordedErrors: 0 });
    } else {
      let at = lumped.get(kind);
      if (at === undefined) {
        at = shapes.length;
        lumped.set(kind, at);
        shapes.push({ name: `other ${kind} statements`, kind, shape: `other ${kind} statements`, captured: 0, recordedErrors: 0 });
      }
      index.set(key, at);
    }
  }
  const byKind: Partial<Record<StatementKind, number>> = {};
  let statements = 0;
  const sessions = capture.sessions.map((session, s) => ({
    id: session.id,
    statements: session.statements.map((statement, i) => {
      const type = index.get(keys[s]![i]!)!;
      const shape = shapes[type]!;
      shape.captured++;
      if (statement.error !== undefined) shape.recordedErrors++;
      byKind[statement.kind] = (byKind[statement.kind] ?? 0) + 1;
      statements++;
      return { statement, type };
    }),
  }));
  return { shapes, sessions, statements, byKind };
}
