import { UserError } from '../../errors.js';
import { redactUrl } from '../../config/redact.js';
import { serverGrammar, singleHostFields } from '../../config/target-grammar.js';

const DEFAULT_PORT = 3050;

/**
 * Firebird's URLs (config/target.ts picks this by the scheme): the URL's parts, then ISC_USER and
 * ISC_PASSWORD, then the defaults. No TLS here: WireCrypt is the server's setting.
 */
export const FIREBIRD_TARGET = serverGrammar({
  dbms: 'firebird',
  defaultPort: DEFAULT_PORT,
  check: (url) => {
    if (url?.params.some(([name]) => name === 'replicas')) {
      throw new UserError('replicas are supported for PostgreSQL and MariaDB only', 'remove ?replicas= from the Firebird URL');
    }
  },
  fields: (url, own, tlsParameters, text, env) =>
    singleHostFields(url, own, tlsParameters, text, {
      dbms: 'firebird',
      // Firebird's own tools (isql, gbak) read only these two.
      fromEnv: { user: env['ISC_USER'], password: env['ISC_PASSWORD'] },
      defaults: { port: DEFAULT_PORT, user: 'SYSDBA' },
      database: (path, _fromEnv, text) => firebirdDatabase(path, text),
    }),
  tls: () => undefined,
});

/**
 * A Firebird database is a file on the server or an alias from its databases.conf. After the
 * host's slash comes the file: `//var/lib/x.fdb` or `/var/lib/x.fdb` (a path with a folder is
 * taken as absolute, since the server resolves relative ones against its own working folder),
 * or a bare alias such as `employee`.
 */
function firebirdDatabase(path: string | undefined, text: string): string {
  if (path === undefined) {
    throw new UserError(
      `the Firebird URL "${redactUrl(text)}" names no database`,
      'add the database file or alias, e.g. firebird://SYSDBA@127.0.0.1:3050//var/lib/firebird/3.0/data/bench.fdb',
    );
  }
  return path.includes('/') && !path.startsWith('/') ? `/${path}` : path;
}
