import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redact, redactArgv, redactUrl } from '../../src/config/redact.js';
import { resolveTarget } from '../../src/config/target.js';
import { UserError } from '../../src/errors.js';
import { targetUrl } from '../../src/cli/pgbench/command.js';
import { conninfoPairs } from '../../src/config/conninfo.js';

test('a URL keeps its user, host, port, database and parameters; only the password is hidden', () => {
  for (const [url, shown] of [
    ['postgres://app:s3cret@db/bank?sslmode=require', 'postgres://app:***@db/bank?sslmode=require'],
    // The last "@" before the host ends the userinfo, as the parser reads it: no tail of the password is left.
    ['postgres://postgres:retPW@retPW@127.0.0.1/test', 'postgres://postgres:***@127.0.0.1/test'],
    ['mariadb://root:p%40ss%3Ax%2Fy%25z@127.0.0.1:3306/test', 'mariadb://root:***@127.0.0.1:3306/test'],
    ['firebird://SYSDBA:masterkey@127.0.0.1:3050//var/lib/x.fdb', 'firebird://SYSDBA:***@127.0.0.1:3050//var/lib/x.fdb'],
    ['postgres:u:pw@h/db', 'postgres:u:***@h/db'],
    ['postgres://?user=x&password=a%40b&sslmode=require', 'postgres://?user=x&password=***&sslmode=require'],
    // An unencoded "&" in a ?password= value: hidden up to the next name=value.
    ['postgres://?password=a&b@c&sslmode=require', 'postgres://?password=***&sslmode=require'],
    ['postgres://u:p@host/db?sslrootcert=/a@b/ca.pem', 'postgres://u:***@host/db?sslrootcert=/a@b/ca.pem'],
    ['postgres://host:5432/db?application_name=me@x', 'postgres://host:5432/db?application_name=me@x'],
    ['postgres://[::1]:5432/db', 'postgres://[::1]:5432/db'],
    ['sqlite:./bench.db?synchronous=off', 'sqlite:./bench.db?synchronous=off'],
    // Not well formed (an unencoded "/" or "?" in the password): hidden up to the "@" a host follows.
    ['postgres://u:a/b@host/db', 'postgres://u:***@host/db'],
    ['postgres://u:a?b=c@host/db', 'postgres://u:***@host/db'],
    ['postgres://u:12/34@host/db?x=a@b', 'postgres://u:***@host/db?x=a@b'],
    ['nats://bench:p@ss@10.0.0.5:4222', 'nats://bench:***@10.0.0.5:4222'],
  ]) {
    assert.equal(redactUrl(url!), shown, url);
  }
});

test('running text: URLs, key=value passwords (quoted or not) and the environment variables that hold one', () => {
  assert.equal(
    redact(`bad "postgres://u:p@ss@h/db" and host=a password='a b' dbname=x, PGPASSWORD=zz MYSQL_PWD=qq ISC_PASSWORD=ww sslpassword=kk`),
    `bad "postgres://u:***@h/db" and host=a password=*** dbname=x, PGPASSWORD=*** MYSQL_PWD=*** ISC_PASSWORD=*** sslpassword=***`,
  );
  assert.equal(redact(`password = 'unterminated to the end`), 'password = ***');
  assert.equal(redact('nothing secret here: user=app host=db'), 'nothing secret here: user=app host=db');
});

test('a command line as stored: --db and --nats redacted, --trust hidden whole, the rest as typed', () => {
  assert.deepEqual(
    redactArgv(['tpcb', '--db', 'postgres://u:pw@h/db', '-c', '4', '--trust', 'sixteen-chars-secret', '--trust=other-secret', '--db=mysql:u:pw@h/db']),
    ['tpcb', '--db', 'postgres://u:***@h/db', '-c', '4', '--trust', '***', '--trust=***', '--db=mysql:u:***@h/db'],
  );
  assert.deepEqual(redactArgv(['-n', 'host=x password=y dbname=z', '--nats', 'nats://a:b@h:4222']), [
    '-n',
    'host=x password=*** dbname=z',
    '--nats',
    'nats://a:***@h:4222',
  ]);
});

test('URL errors never quote a piece of the password, and a URL whose "@" is not where a well-formed one has it is refused', () => {
  const refusal = (url: string): string => {
    try {
      resolveTarget(url, {});
    } catch (error) {
      assert.ok(error instanceof UserError, String(error));
      return `${error.message} ${error.hint ?? ''}`;
    }
    assert.fail(`${url} was accepted`);
  };
  for (const [url, secret] of [
    ['postgres://u:topsecret@host:99999/db', 'topsecret'],
    ['postgres://u:a/verysecret@host/db', 'verysecret'],
    ['postgres://u:12/34567@host/db', '34567'],
    ['postgres://u:a?very=secret@host/db', 'secret'],
    ['postgres://h/db?password=topsecret&x', 'topsecret'],
    ['postgres://h/db?password=top%zzsecret', 'secret'],
    ['postgres://h/db?password=top&sec@ret', 'sec'],
    ['postgress://u:topsecret@h/db', 'topsecret'],
    ['postgress:u:topsecret@h/db', 'topsecret'],
    ['firebird://SYSDBA:masterkey@host', 'masterkey'],
    ['sqlite:a.db?password=top%zzsecret', 'secret'],
  ]) {
    const message = refusal(url!);
    assert.ok(!message.includes(secret!), `${url}: ${message}`);
  }
  assert.match(refusal('postgres://u:a/b@host/db'), /malformed database URL "postgres:\/\/u:\*\*\*@host\/db": it has an "@" after the host; .*%2F/);
  // A database name with "@" is written %40 (a password's "/" would otherwise make the rest a database name, printed).
  assert.match(refusal('postgres://host/my@db'), /%40/);
  assert.equal((resolveTarget('postgres://host/my%40db', {}) as { database: string }).database, 'my@db');
});

test('headroom pgbench: a quoted conninfo password reaches the URL as given (a space stays a space), and a broken conninfo shows no part of it', () => {
  const url = targetUrl({ host: undefined, port: undefined, user: undefined, dbname: "host=127.0.0.1 user=app password='a b+c' dbname=bank" }, {});
  const target = resolveTarget(url, {}) as { password: string; user: string; database: string };
  assert.deepEqual([target.user, target.password, target.database], ['app', 'a b+c', 'bank']);
  for (const text of ['host=x password=top secret', "host=x password='topsecret", 'password=topsecret oops']) {
    assert.throws(
      () => conninfoPairs(text),
      (error: unknown) => error instanceof UserError && /connection string/.test(error.message) && !`${error.message} ${error.hint}`.includes('secret'),
      text,
    );
  }
});
