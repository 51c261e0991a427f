import { logLine, type Session } from './session.js';
import { noticeUnanswered, type WaitStage } from './unanswered-notice.js';

/** What a command's Ctrl-C handler gives it: the signal its work stops on, the second one's, and the handler's removal. */
export interface Interrupt {
  signal: AbortSignal;
  /**
   * A second Ctrl-C (or SIGTERM): whatever is still waited for (transactions in flight, the server's
   * answers after the run) is waited for no longer; what was measured is written, then the command exits.
   */
  hurry: AbortSignal;
  dispose(): void;
}

/** After a second signal, the command has this long to write what it measured before it quits anyway. */
const HURRY_LIMIT_MS = 5_000;

/**
 * The one SIGINT/SIGTERM handler of a run, a sweep, an experiment or a load: the first signal
 * aborts `signal`, so that the work stops and writes what it measured (or rolls back what it was
 * loading); a second aborts `hurry`, so that nothing more is waited for before writing it, and
 * quits with 130 if that has not happened within HURRY_LIMIT_MS; a third quits at once. Quitting
 * says which server-wide --set changes were left in place (`unrestored`).
 */
export function onInterrupt(message: string, unrestored?: () => string | undefined): Interrupt {
  const abort = new AbortController();
  const hurry = new AbortController();
  const quit = (): void => {
    const left = unrestored?.();
    if (left) logLine(left);
    process.exit(130);
  };
  const onSignal = (): void => {
    if (hurry.signal.aborted) quit();
    if (abort.signal.aborted) {
      hurry.abort();
      logLine('interrupted again: writing what was measured now, waiting for nothing more (Ctrl-C again to quit at once)');
      // Unref'd: a command that finishes writing first ends as it would have.
      setTimeout(quit, HURRY_LIMIT_MS).unref();
      return;
    }
    abort.abort();
    logLine(`interrupted: ${message} (Ctrl-C again to stop waiting and write it at once)`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: abort.signal,
    hurry: hurry.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * Before a command's work has anything to write (the scale read, the load checked, the sizes at
 * the start), Ctrl-C or SIGTERM ends it at once, as it would with no handler, but says so in a
 * line, and names the server-wide --set changes it leaves for the next command to put back. The
 * statement it waited for may be held up by a lock for minutes: nothing is waited for. Returns the
 * handler's removal, due before a load or a run installs its own (onInterrupt).
 */
function quitOnInterrupt(stage: WaitStage, unrestored?: () => string | undefined): () => void {
  const onSignal = (): void => {
    logLine(`interrupted ${stage.during}: ${stage.stopping}`);
    const left = unrestored?.();
    if (left) logLine(left);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/**
 * The wait before a command's work has anything to write (`run` before its terminals, `check`): a
 * statement the server leaves unanswered is told (noticeUnanswered), and Ctrl-C says what it
 * stopped (quitOnInterrupt). Returns the end of both.
 */
export function watchBeforeWork(session: Pick<Session, 'conn' | 'driver'>, stage: WaitStage, unrestored?: () => string | undefined): () => void {
  const stopNotices = noticeUnanswered(session, stage);
  const stopQuitting = quitOnInterrupt(stage, unrestored);
  return () => {
    stopNotices();
    stopQuitting();
  };
}
