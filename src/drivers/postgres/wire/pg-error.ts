/** An ErrorResponse from the server, with its fields by name (protocol "Error and Notice Message Fields"). */
export class PgServerError extends Error {
  override readonly name = 'PgServerError';
  constructor(
    message: string,
    /** SQLSTATE: what drivers/postgres/errors.ts classifies. */
    readonly code: string,
    readonly severity: string,
    readonly detail: string | undefined,
    readonly hint: string | undefined,
    /** The server's CONTEXT field (e.g. the portal's parameters): libpq prints it after the message. */
    readonly context?: string,
    /** The server's ROUTINE field: the C function that raised it, the same in every language the server speaks. */
    readonly routine?: string,
    /** The server's POSITION field: where in the statement's text the error lies, from 1, in characters. */
    readonly position?: number,
    /** INTERNAL POSITION and INTERNAL QUERY: the same within a statement the server generated (a PL/pgSQL function's). */
    readonly internalPosition?: number,
    readonly internalQuery?: string,
  ) {
    super(message);
  }

  /** The text of the statement the server parsed in the failed request, which `position` counts into; set by the connection where it has one. */
  query: string | undefined;

  static parse(body: Buffer, start: number, end: number): PgServerError {
    const fields = new Map<string, string>();
    let i = start;
    while (i < end && body[i] !== 0) {
      const field = String.fromCharCode(body[i]!);
      const found = body.indexOf(0, i + 1);
      // A field without its NUL (a corrupt message) ends at the message's end.
      const stop = found < 0 || found > end ? end : found;
      fields.set(field, body.toString('utf8', i + 1, stop));
      i = stop + 1;
    }
    const severity = fields.get('V') ?? fields.get('S') ?? 'ERROR';
    const message = fields.get('M') ?? 'unknown server error';
    const number = (field: string): number | undefined => (fields.has(field) ? Number(fields.get(field)) : undefined);
    return new PgServerError(
      message,
      fields.get('C') ?? 'XX000',
      severity,
      fields.get('D'),
      fields.get('H'),
      fields.get('W'),
      fields.get('R'),
      number('P'),
      number('p'),
      fields.get('q'),
    );
  }
}

/** The socket closed or failed under the client; `code` carries the socket's errno name when there is one. */
export class PgConnectionError extends Error {
  override readonly name = 'PgConnectionError';
  constructor(
    message: string,
    readonly code: string | undefined,
    /** The IP address a failed connect was made to, where the socket told it. */
    readonly address?: string,
  ) {
    super(message);
  }
}
