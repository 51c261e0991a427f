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
