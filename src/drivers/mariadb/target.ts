import { UserError } from '../../errors.js';
import { describeServer, serverGrammar, singleHostFields } from '../../config/target-grammar.js';
import { nonEmpty } from '../../config/url.js';
import { redactUrl } from '../../config/redact.js';
import { mariadbTlsSettings } from './tls-options.js';

const DEFAULT_PORT = 3306;

/**
 * MariaDB's URLs (config/target.ts picks this by the scheme): the URL's parts, then the mysql
 * client's environment variables (MYSQL_*), then its defaults. TLS only when the URL asks for it.
 */
export const MARIADB_TARGET = serverGrammar({
  dbms: 'mariadb',
  defaultPort: DEFAULT_PORT,
  fields: (url, own, tlsParameters, text, env) => {
    const target = singleHostFields(url, own, tlsParameters, text, {
      dbms: 'mariadb',
      fromEnv: { host: env['MYSQL_HOST'], port: env['MYSQL_TCP_PORT'], user: env['MYSQL_USER'], password: env['MYSQL_PWD'], database: env['MYSQL_DATABASE'] },
      defaults: { port: DEFAULT_PORT, user: 'root' },
      database: (path, fromEnv, text) => path ?? fromEnv ?? noDatabase(text),
    });
    // The Unix socket: ?socket=, else MYSQL_UNIX_PORT when the URL names no host (as the mysql client does).
    const socket = own.get('socket') ?? (url?.hosts[0]?.host === undefined ? nonEmpty(env['MYSQL_UNIX_PORT']) : undefined);
    if (socket !== undefined && !socket.startsWith('/')) {
      throw new UserError(`socket "${socket}" is not an absolute path`, 'use e.g. ?socket=/run/mysqld/mysqld.sock (mariadb -e "select @@socket" shows it)');
    }
    if (socket !== undefined) target.host = socket;
    return target;
  },
  tls: (given) => mariadbTlsSettings(given),
  // A socket is printed as the mariadb client takes it: localhost, with ?socket=.
  describe: (target) => (target.host.startsWith('/') ? describeServer(target, 'localhost', [`socket=${target.host}`]) : describeServer(target)),
});

/**
 * A URL without a database and no MYSQL_DATABASE is refused: the mariadb client then uses none
 * (its tables need one), and a default such as "test" would load and measure in a database the
 * user never named.
 */
function noDatabase(text: string): never {
  throw new UserError(
    `the MariaDB URL "${redactUrl(text)}" names no database, and MYSQL_DATABASE is not set`,
    'add the database to the URL, e.g. mariadb://root@127.0.0.1:3306/test, or set MYSQL_DATABASE',
  );
}
