import { isIP } from 'node:net';

/** The C library's strerror() text for the socket errors a connect may end with, as libpq prints it. */
const STRERROR: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ENOENT: 'No such file or directory',
  EHOSTUNREACH: 'No route to host',
  ENETUNREACH: 'Network is unreachable',
  ETIMEDOUT: 'Connection timed out',
  EACCES: 'Permission denied',
  ECONNRESET: 'Connection reset by peer',
  EADDRNOTAVAIL: 'Cannot assign requested address',
};

/** getaddrinfo's gai_strerror() text for a name that could not be looked up. */
const GAI_STRERROR: Record<string, string> = {
  ENOTFOUND: 'Name or service not known',
  EAI_AGAIN: 'Temporary failure in name resolution',
};

export interface FailedAttempt {
  host: string;
  port: number;
  /** The socket error's errno name, or the server's SQLSTATE for a refusal. */
  code: string | undefined;
  /** The address connected to, for a host given by name. */
  address: string | undefined;
  /** The server's refusal as libpq reports it ("FATAL:  ..."), when the server refused. */
  serverReport: string | undefined;
  /** The connection's own words when it is neither: a timeout, an answer that is not PostgreSQL's. */
  message: string;
}

/**
 * One failed connection attempt in libpq's words, as psql and pgbench print them: the server named
 * by its host (and, for a name, the address tried) or its socket, and why; for a socket error,
 * libpq's question whether a server listens there.
 */
export function connectionFailureReport(attempt: FailedAttempt): string {
  const { host, port, code } = attempt;
  if (code !== undefined && GAI_STRERROR[code] !== undefined) return `could not translate host name "${host}" to address: ${GAI_STRERROR[code]}`;
  const socket = host.startsWith('/');
  const shownAddress = !socket && attempt.address !== undefined && isIP(host) === 0 ? ` (${attempt.address})` : '';
  const server = socket ? `on socket "${host}/.s.PGSQL.${port}"` : `at "${host}"${shownAddress}, port ${port}`;
  const head = `connection to server ${server} failed: `;
  if (attempt.serverReport !== undefined) return head + attempt.serverReport;
  if (code === 'ETIMEDOUT' && /timeout expired/.test(attempt.message)) return `${head}timeout expired`;
  const reason = code === undefined ? undefined : STRERROR[code];
  if (reason === undefined) return head + attempt.message;
  const question = socket
    ? 'Is the server running locally and accepting connections on that socket?'
    : 'Is the server running on that host and accepting TCP/IP connections?';
  return `${head}${reason}\n\t${question}`;
}
