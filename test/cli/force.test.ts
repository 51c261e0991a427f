import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeTarget, type ServerTarget } from '../../src/config/target.js';
import type { RunResult } from '../../src/result/result.js';
import { createDriver } from '../../src/drivers/registry.js';
import { runCli } from '../helpers/cli.js';
import { connectFresh } from '../helpers/databases.js';

/**
 * A connection storm against a user whose connection limit is 4: the run's own session takes
 * one, so three of five terminals get in. Without --force that is a one-line error; with it the
 * run goes on with three and the result says the server refused two.
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
    assert.match(refused.stderr, /headroom: .*(too many connections|max_user_connections).*\(the server has no free connection slot/);

    const forced = await runCli(['run', 'tpcb', '--db', url, '-c', '5', '-t', '20', '-P', '0', '--force', '--out', path.join(work, 'forced.json')]);
    assert.equal(forced.code, 0, forced.stderr);
    const result = JSON.parse(readFileSync(path.join(work, 'forced.json'), 'utf8')) as RunResult;
    assert.deepEqual([result.summary.connections.accepted, result.summary.connections.refused], [3, 2]);
    assert.equal(result.summary.transactions + result.summary.failed, 3 * 20);
    assert.match(forced.stdout, /the server accepted 3 of 5 and refused 2/);
  });
}
