import { unlessCut } from '../common/unless-cut.js';
import { logLine, type Session } from './session.js';
import type { ServerSettings } from './server-settings.js';

const CUT = Symbol('cut');

/** How long the server may take to give its end-of-run figures after a run it answered to the end. */
const END_FIGURES_MS = 10_000;

/**
 * What the server still owes after a measured run (its end-of-run figures, the workload's checks,
 * a planning sample) is waited for only while it answers: not at all after a run it stopped
 * answering (terminals were still waiting at the end), and no longer once Ctrl-C comes after the
 * run (one during the run only ended the run), a second Ctrl-C comes, or the end-of-run figures take
 * longer than END_FIGURES_MS. A cut wait leaves the session's connection stuck behind its request,
 * so the session is marked (Session.unanswered) and nothing more is asked of it.
 */
export class PostRun {
  private readonly controller = new AbortController();
  private readonly listeners: [AbortSignal, () => void][] = [];

  constructor(
    private readonly session: Session,
    stalled: boolean,
    signal: AbortSignal,
    hurry: AbortSignal | undefined,
  ) {
    if (session.unanswered !== undefined || stalled) this.cut(session.unanswered ?? 'the server stopped answering during the run');
    if (!signal.aborted) this.listen(signal, 'interrupted after the run');
    if (hurry) this.listen(hurry, 'interrupted again');
  }

  /** Aborts once anything is cut. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** `work()`'s answer, or `fallback` when the wait is cut (`what` is then said once, with why). */
  async ask<T>(what: string, work: () => Promise<T>, fallback: T): Promise<T> {
    const answered = await unlessCut<T | typeof CUT>(work, this.controller.signal, CUT);
    if (answered !== CUT) return answered;
    logLine(`${what} left out: ${String(this.controller.signal.reason)}`);
    return fallback;
  }

  /**
   * The server's end-of-run figures (`what`): `stop(cut)` keeps what needs no server when the wait
   * is cut, or takes longer than END_FIGURES_MS, and the cut is said once.
   */
  async endFigures<T>(what: string, stop: (cut: AbortSignal) => Promise<T>): Promise<T> {
    const timer = setTimeout(() => this.cut(`the server did not give its end-of-run figures within ${END_FIGURES_MS / 1000} s`), END_FIGURES_MS);
    try {
      return await stop(this.controller.signal);
    } finally {
      clearTimeout(timer);
      if (this.controller.signal.aborted) logLine(`${what} left out: ${String(this.controller.signal.reason)}`);
    }
  }

  dispose(): void {
    for (const [signal, listener] of this.listeners) signal.removeEventListener('abort', listener);
  }

  private listen(signal: AbortSignal, why: string): void {
    const listener = (): void => this.cut(why);
    if (signal.aborted) listener();
    else signal.addEventListener('abort', listener, { once: true });
    this.listeners.push([signal, listener]);
  }

  private cut(why: string): void {
    if (this.controller.signal.aborted) return;
    this.session.unanswered ??= why;
    this.controller.abort(why);
  }
}

const toldUnrestored = new WeakSet<ServerSettings>();

/**
 * --set's restore at the end of a command, unless the server stopped answering it: then the changes
 * stay, with their crash-safe record, for the next command against the server to put back (said once).
 */
export async function restoreUnlessUnanswered(session: Session, settings: ServerSettings): Promise<void> {
  if (session.unanswered === undefined) return settings.restore();
  const left = settings.unrestored();
  if (left === undefined || toldUnrestored.has(settings)) return;
  toldUnrestored.add(settings);
  logLine(`${session.unanswered}: ${left}`);
}
