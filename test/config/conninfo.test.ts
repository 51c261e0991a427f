import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redact, redactArgv } from '../../src/config/redact.js';
import { resolveTarget, type ServerTarget } from '../../src/config/target.js';
import { UserError } from '../../src/errors.js';
import { targetUrl } from '../../src/cli/pgbench/command.js';

/** A --db value resolved with no environment, as a server target. */
const resolve = (db: string): ServerTarget => resolveTarget(db, {}, () => {}) as ServerTarget;

/** The one-line refusal of a --db value: its message and hint. */
function refusal(db: string): string {
  try {
    resolve(db);
  } catch (error) {
    assert.ok(error instanceof UserError, `${db}: ${String(error)}`);
    return `${error.message} (${error.hint})`;
  }
  assert.fail(`${db} was accepted`);
}

test("--db takes libpq's key=value connection string: PostgreSQL, each key as the URL's parameter of that name", () => {
  const target = resolve(
    "host=db.example port = 5433 dbname='my bank' user=app password='it\\'s a\\\\b' application_name=load\\ test connect_timeout=3 target_session_attrs=read-write sslmode=disable",
  );
  assert.equal(target.dbms, 'postgres');
  assert.deepEqual(
    [target.host, target.port, target.database, target.user, target.password, target.applicationName, target.connectTimeoutMs, target.targetSessionAttrs],
    ['db.example', 5433, 'my bank', 'app', "it's a\\b", 'load test', 3000, 'read-write'],
  );
  assert.deepEqual(target.tlsParameters, { sslmode: 'disable' });
  // Several hosts and a socket folder, as libpq lists them; the last of a repeated key wins.
  const hosts = resolve('host=/var/run/postgresql,10.0.0.2 port=5432,5433 dbname=a dbname=b');
  assert.deepEqual([hosts.host, hosts.port, hosts.fallbacks, hosts.database], ['/var/run/postgresql', 5432, [{ host: '10.0.0.2', port: 5433 }], 'b']);
  // "options" keeps its inner "=" and spaces.
  assert.equal(resolve("host=h options='-c search_path=x -c work_mem=64MB'").options, '-c search_path=x -c work_mem=64MB');
  // URLs and bare names are what they were.
  assert.equal(resolve('postgres://u@h:5432/d?application_name=a=b').applicationName, 'a=b');
  assert.equal(resolveTarget('sqlite:file=x.db', {}).dbms, 'sqlite');
  assert.equal(resolve('mariadb://root@h/d').dbms, 'mariadb');
});

test('a connection string with a key headroom does not know, or cannot parse, is refused in one line naming the key and showing no password', () => {
  assert.match(
    refusal('host=h colour=blue'),
    /^unknown parameter "colour" in the connection string \(remove it or check its spelling; PostgreSQL URLs take host, port/,
  );
  assert.match(refusal('host=h hostaddr=10.0.0.1'), /^the libpq parameter "hostaddr" in the connection string is not supported by headroom yet/);
  assert.match(refusal('host=h port=99999'), /port "99999" is not a TCP port/);
  // headroom pgbench's dbname argument: a URL with a query string is a URL, as libpq reads it, not a connection string.
  const url = 'postgres://u@h:5432/d?sslmode=disable&application_name=a';
  assert.equal(targetUrl({ host: undefined, port: undefined, user: undefined, dbname: url }, {}), url);
  // It names the connection string too, not a URL the user never wrote.
  assert.throws(
    () => targetUrl({ host: undefined, port: undefined, user: 'u', dbname: 'host=h colour=blue' }, {}),
    (error: unknown) => error instanceof UserError && error.message === 'unknown parameter "colour" in the connection string',
  );
  for (const db of ['host=h password=top secret', "host=h password='topsecret", 'host=h password=topsecret user']) {
    const message = refusal(db);
    assert.match(message, /^invalid connection string: /, db);
    assert.ok(!message.includes('secret'), `${db}: ${message}`);
  }
});

test("a connection string's password is hidden whole in a stored command line and in messages, however libpq would have read it", () => {
  for (const [db, shown] of [
    ["host=h password='a b\\' c' dbname=d", 'host=h password=*** dbname=d'],
    ['host=h password=a\\ b dbname=d', 'host=h password=*** dbname=d'],
    ['host=h password=ab"cd\'ef dbname=d', 'host=h password=*** dbname=d'],
    ['host=h password = x sslpassword=y', 'host=h password = *** sslpassword=***'],
    // Not a string libpq reads (unclosed quote): everything after the password's "=" is hidden.
    ["host=h password='a b dbname=d", 'host=h password=***'],
  ]) {
    assert.deepEqual(redactArgv(['run', '--db', db!]), ['run', '--db', shown], db);
    assert.equal(redactArgv([`--db=${db}`])[0], `--db=${shown}`, db);
    assert.equal(redact(db!), shown, db);
  }
});
