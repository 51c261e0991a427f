import { DbError } from './errors.js';

/**
 * A string a wire protocol would have to end with a NUL byte (PostgreSQL's query text and names,
 * MariaDB's user and database at login) but that holds one: sent, the server would read a
 * shorter string and the rest as the next fields, and the stream would be lost. Refused instead,
 * as a bad request: the same string would fail again. The text itself is not quoted (it may be a
 * password).
 */
export function unframeableString(dbms: string, value: string): DbError {
  return new DbError(
    'bad_request',
    `a string for ${dbms} holds a NUL byte (at character ${value.indexOf('\0') + 1} of ${value.length}), which its protocol cannot carry in a NUL-terminated field`,
    undefined,
    'remove the NUL byte from the statement, user, database or password',
  );
}
