import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Connection } from '../../src/drivers/driver.js';
import type { ServerTarget } from '../../src/config/target.js';
import { settledBudget } from '../../src/session/budget.js';
import { createDriver } from '../helpers/drivers.js';
import { freshDatabase } from '../helpers/databases.js';
import { limitedUser } from '../helpers/limited-user.js';

// The terminals that follow a load's extra connections (tpcc's loaders) or a sweep's step wait for
// the server to count those as gone: a user limited to 3 connections holds one session and one
// extra, and the wait ends once the extra is closed, or after 3 s, or when the run is interrupted.
for (const dbms of ['postgres', 'mariadb'] as const) {
  test(`${dbms}: the terminals wait for the server to let go of connections closed before them`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    const admin = await createDriver(db.target).connect();
    const user = await limitedUser(admin, dbms, db.target as ServerTarget, 3, 'headroom_settle');
    const limited = user.driver;
    const held: Connection[] = [];
    t.after(async () => {
      for (const c of held) await c.close().catch(() => undefined);
      await user.drop();
      await admin.close();
      await db.dispose();
    });
    const session = { driver: limited, conn: await limited.connect() };
    held.push(session.conn);
    const before = await limited.connectionBudget(session.conn);
    assert.deepEqual([before?.max, before?.inUse], [3, 1]);
    const freeBefore = before!.max - before!.inUse;
    const never = new AbortController().signal;

    // Closed while the terminals wait: they go on once the server no longer counts it.
    const extra = await limited.connect();
    held.push(extra);
    const started = performance.now();
    setTimeout(() => void extra.close(), 400);
    const settled = await settledBudget(session, never, freeBefore);
    const waited = performance.now() - started;
    assert.equal(settled!.max - settled!.inUse, freeBefore, 'the closed connection no longer counted');
    assert.ok(waited >= 400 && waited < 3_000, `waited ${waited.toFixed(0)} ms: for the close, not for the 3 s limit`);

    // Never closed: the wait gives up after 3 s with what the server then counts.
    const kept = await limited.connect();
    held.push(kept);
    const since = performance.now();
    const unsettled = await settledBudget(session, never, freeBefore);
    assert.equal(unsettled!.max - unsettled!.inUse, freeBefore - 1);
    assert.ok(performance.now() - since >= 3_000, 'waited the 3 s out');

    // Interrupted: no more waiting.
    const interrupt = new AbortController();
    setTimeout(() => interrupt.abort(), 300);
    const since2 = performance.now();
    await settledBudget(session, interrupt.signal, freeBefore);
    assert.ok(performance.now() - since2 < 1_500, 'an interrupted run stops waiting at the next poll');
  });
}
