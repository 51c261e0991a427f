import { resolve } from 'node:path';
import { UserError } from '../../errors.js';
import type { Statement } from '../../drivers/driver.js';
import type { OptionValues } from '../../config/options.js';
import type { CaptureFile, CapturedStatement } from './capture-file.js';
import type { ScheduledUnit, TerminalSchedule, TransactionType, Workload } from '../workload.js';
import { readCaptureFile } from './capture-io.js';
import { replayPlan, type ReplayPlan } from './replay-plan.js';
import { runRecorded } from './run-statement.js';

/**
 * Captures read and planned, by path: each thread (a -j worker reads it again) reads a capture once,
 * and the replay command and the workload it runs share one copy (a capture is big: two copies of
 * 359,427 statements held 418 MB, and reading and shaping it twice took seconds before the start).
 */
const planned = new Map<string, { capture: CaptureFile; plan: ReplayPlan }>();

export function readPlanned(path: string): { capture: CaptureFile; plan: ReplayPlan } {
  const full = resolve(path);
  let entry = planned.get(full);
  if (!entry) {
    const capture = readCaptureFile(full);
    entry = { capture, plan: replayPlan(capture) };
    planned.set(full, entry);
  }
  return entry;
}

export function planOf(options: OptionValues): ReplayPlan {
  const path = options['capture'];
  if (typeof path !== 'string') throw new UserError('replay needs a capture file', 'headroom replay CAPTURE.json --db URL');
  return readPlanned(path).plan;
}

export function speedOf(options: OptionValues): number {
  const speed = Number(options['speed'] ?? 1);
  return Number.isFinite(speed) && speed > 0 ? speed : 1;
}

/**
 * How a replay times its statements. statements: each at its recorded start (as pgreplay does);
 * transactions: each transaction's first statement at its recorded start, the rest of it as soon
 * as the one before ended plus the time the recording's client took between them.
 */
export type ReplayPace = 'statements' | 'transactions';

function paceOf(options: OptionValues): ReplayPace {
  return options['pace'] === 'transactions' ? 'transactions' : 'statements';
}

/**
 * --pace transactions: for each statement, undefined where it is due at its recorded start (one
 * that begins a transaction or runs outside one), else the milliseconds it follows the statement
 * before it by. That is the recorded gap less the recorded duration of the one before, where the
 * log timed it; where it did not (log_statement = all), the gap held the server's time and its
 * lock waits as much as the client's, so none of it is kept.
 */
function followTimes(statements: readonly { statement: CapturedStatement }[], speed: number): (number | undefined)[] {
  let inBlock = false;
  return statements.map(({ statement }, i) => {
    const follows = inBlock;
    if (statement.kind === 'begin') inBlock = true;
    else if (statement.kind === 'commit' || statement.kind === 'rollback') inBlock = false;
    if (!follows) return undefined;
    const before = statements[i - 1]!.statement;
    if (before.durationMs === undefined) return 0;
    const clientS = statement.atS - before.atS - before.durationMs / 1000;
    return Math.max(0, (clientS * 1000) / speed);
  });
}

/** What each terminal's runners read: the statement its schedule handed out last. */
const current = new Map<number, { statement: CapturedStatement | undefined }>();

/**
 * A captured load played back (headroom replay): terminal i is the capture's session i, running its
 * statements in the recorded order, each due at its recorded start divided by --speed (with --pace
 * transactions, each transaction's first; the rest follow the statement before them); one
 * transaction type per statement shape, so that the result's per-type figures are per statement.
 */
export const replay: Workload = {
  name: 'replay',
  description: 'a captured load played back at its recorded times (headroom replay)',
  tables: [],
  scaleHelp: 'not used',
  defaultScale: 1,
  parseScale: () => 1,
  options: [
    { long: 'capture', type: 'string', value: 'FILE', help: 'replay: the capture file', verbs: [] },
    { long: 'speed', type: 'number', value: 'X', help: 'replay: the recorded times divided by X', default: 1, verbs: [] },
    { long: 'pace', type: 'string', value: 'statements|transactions', help: 'replay: what is due at its recorded time', default: 'statements', verbs: [] },
  ],
  needsData: () => false,
  async detectScale() {
    return undefined;
  },
  async load() {
    return [];
  },
  async check() {
    return [];
  },
  async drop() {},

  schedule(options, terminal): TerminalSchedule {
    const plan = planOf(options);
    const speed = speedOf(options);
    const session = plan.sessions[terminal];
    const statements = session?.statements ?? [];
    const slot: { statement: CapturedStatement | undefined } = { statement: undefined };
    current.set(terminal, slot);
    let next = 0;
    const follows = paceOf(options) === 'transactions' ? followTimes(statements, speed) : undefined;
    const unit = (i: number): ScheduledUnit => {
      const dueMs = (statements[i]!.statement.atS / speed) * 1000;
      const followsMs = follows?.[i];
      return followsMs === undefined ? { type: statements[i]!.type, dueMs } : { type: statements[i]!.type, dueMs, followsMs };
    };
    return {
      next() {
        if (next >= statements.length) return undefined;
        slot.statement = statements[next]!.statement;
        return unit(next++);
      },
      *remaining() {
        for (let i = next; i < statements.length; i++) yield unit(i);
      },
    };
  },

  transactions(options): TransactionType[] {
    return planOf(options).shapes.map((shape) => ({
      name: shape.name,
      weight: 1,
      readOnly: shape.kind === 'select',
      async prepare(conn, ctx) {
        const slot = current.get(ctx.terminal);
        // Prepared statements belong to this connection: a reconnect prepares the runner anew.
        const prepared = new Map<string, Statement>();
        return async () => {
          const statement = slot?.statement;
          if (statement) await runRecorded(conn, statement, prepared, ctx.count);
        };
      },
    }));
  },
};
