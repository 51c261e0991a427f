/** An ERR packet from the server: what drivers/mariadb/errors.ts classifies by `errno`. */
export class MariadbServerError extends Error {
  override readonly name = 'MariadbServerError';
  /** True when the server closes the connection after it (an error during the handshake). */
  readonly fatal: boolean;
  constructor(
    /** The server's own text. */
    readonly sqlMessage: string,
    readonly errno: number,
    readonly sqlState: string | undefined,
    fatal = false,
  ) {
    super(sqlMessage);
    this.fatal = fatal;
  }
}

/** The socket closed or failed under the client; `code` is the errno name when there is one. */
export class MariadbConnectionError extends Error {
  override readonly name = 'MariadbConnectionError';
  readonly fatal = true;
  readonly sqlMessage: string;
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.sqlMessage = message;
  }
}
