import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeTarget, type ServerTarget } from '../../src/config/target.js';
import type { RunResult } from '../../src/result/result.js';
import { createDriver } from '../helpers/drivers.js';
import { runCli } from '../helpers/cli.js';
import { connectFresh } from '../helpers/databases.js';

/**
 * A connection storm against a user whose connection limit is 4: the run's own session takes
 * one, so three of five terminals get in. Without --force the user's limit refuses the run in one
 * line before anything is loaded; with --force the run goes on with three, prints three, and the
 * result says the server refused two of the five asked.
 */
for (const dbms of ['postgres', 'mariadb'] as const) {
  test(`${dbms}: more terminals than the server lets in fail in one line, or run with what it accepts under --force`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const { db, conn } = fresh;
    const target = db.target as ServerTarget;
    const role = `headroom_storm_${Math.floor(Math.random() * 1e6)}`;
    if (dbms === 'postgres') {
      await conn.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 4`);
      await conn.query(`GRANT ALL ON SCHEMA public TO ${role}`);
    } else {
      await conn.query(`CREATE USER '${role}'@'%' WITH MAX_USER_CONNECTIONS 4`);
      await conn.query(`GRANT ALL ON ${target.database}.* TO '${role}'@'%'`);
    }
    const work = mkdtempSync(path.join(tmpdir(), 'headroom-storm-'));
    // Runs after the database (and so everything the role owns) is gone.
    t.after(async () => {
      rmSync(work, { recursive: true, force: true });
      const admin = await createDriver(db.admin).connect();
      await admin.query(dbms === 'postgres' ? `DROP ROLE IF EXISTS ${role}` : `DROP USER IF EXISTS '${role}'@'%'`);
      await admin.close();
    });
    const url = describeTarget({ ...target, user: role });
    const refused = await runCli(['run', 'tpcb', '--db', url, '-c', '5', '-t', '20', '-P', '0', '--out', path.join(work, 'refused.json')]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(
      refused.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('headroom: ')).length,
      1,
      refused.stderr,
    );
    // The user's own limit is the budget, told before anything is loaded, with the statement that raises it.
    assert.match(
      refused.stderr,
      dbms === 'postgres'
        ? new RegExp(
            `headroom: the server accepts 3 more connections \\(CONNECTION LIMIT of role ${role} 4, 1 in use\\), but -c 5 needs 5 \\(use -c 3 or less, raise the limit \\(ALTER ROLE ${role} CONNECTION LIMIT N\\), or --force`,
          )
        : new RegExp(
            `headroom: the server accepts 3 more connections \\(MAX_USER_CONNECTIONS of user '${role}'@'%' 4, 1 in use\\), but -c 5 needs 5 \\(use -c 3 or less, raise the limit \\(ALTER USER '${role}'@'%' WITH MAX_USER_CONNECTIONS N\\)`,
          ),
    );
    assert.doesNotMatch(refused.stdout, /loading/);

    const forced = await runCli(['run', 'tpcb', '--db', url, '-c', '5', '-t', '20', '-P', '0', '--force', '--out', path.join(work, 'forced.json')]);
    assert.equal(forced.code, 0, forced.stderr);
    const result = JSON.parse(readFileSync(path.join(work, 'forced.json'), 'utf8')) as RunResult;
    assert.deepEqual([result.summary.connections.accepted, result.summary.connections.refused], [3, 2]);
    assert.equal(result.summary.transactions + result.summary.failed, 3 * 20);
    assert.match(forced.stdout, /the server accepted 3 of 5 and refused 2/);
    // What ran is what is printed: pgbench's block and the summary count the 3 clients, the result keeps the 5 asked.
    assert.equal(result.config.clients, 5);
    assert.match(forced.stdout, /^number of clients: 3$/m);
    assert.match(forced.stdout, /^number of transactions actually processed: 60\/60$/m);
    assert.match(forced.stdout, /^scale: \d+, clients: 3 \(5 asked, the server refused 2\), /m);
  });
}
