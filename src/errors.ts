/**
 * An error caused by what the user asked for (bad option, unknown workload, unreachable server).
 * The CLI prints it as one line with its hint and exits with code 2; no stack unless --verbose.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(
    message: string,
    readonly hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A broken pgbench script: its excerpt (the line and a caret) is printed by headroom pgbench, as pgbench prints it. */
export class ScriptSyntaxError extends UserError {
  constructor(
    message: string,
    hint: string,
    readonly excerpt: readonly string[],
  ) {
    super(message, hint);
  }
}

/** A user's Ctrl-C that stopped work part way (a load): printed like a UserError, exit code 130. */
export class InterruptedError extends UserError {}

/**
 * Work that stopped moving and was given up (a server that stopped answering, a workload module's
 * promise that never settles): printed like a UserError, exit code 1, since the run failed rather
 * than the command line.
 */
export class StalledError extends UserError {}
