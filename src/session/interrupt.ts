import { logLine } from './session.js';

/** What a command's Ctrl-C handler gives it: the signal its work stops on, and the handler's removal. */
export interface Interrupt {
  signal: AbortSignal;
  dispose(): void;
}

/**
 * The one SIGINT/SIGTERM handler of a run, a sweep, an experiment or a load: the first signal
 * aborts `signal`, so that the work stops and writes what it measured (or rolls back what it was
 * loading); a second one quits at once with 130, after saying which server-wide --set changes
 * were left in place (`unrestored`).
 */
export function onInterrupt(message: string, unrestored?: () => string | undefined): Interrupt {
  const abort = new AbortController();
  const onSignal = (): void => {
    if (abort.signal.aborted) {
      const left = unrestored?.();
      if (left) logLine(left);
      process.exit(130);
    }
    abort.abort();
    logLine(`interrupted: ${message} (Ctrl-C again to quit at once)`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: abort.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
