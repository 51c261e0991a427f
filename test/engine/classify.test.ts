import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readsOnly } from '../../src/engine/routing/classify.js';

test('only plain reads are routed to replicas; locking reads and anything that writes stay on the primary', () => {
  for (const sql of ['SELECT abalance FROM pgbench_accounts WHERE aid = ?', '  /* x */ select 1', 'WITH t AS (SELECT 1) SELECT * FROM t'])
    assert.equal(readsOnly(sql), true, sql);
  for (const sql of [
    'UPDATE t SET a = 1',
    'INSERT INTO t VALUES (1)',
    'SELECT * FROM t WHERE id = ? FOR UPDATE',
    'SELECT * FROM t FOR SHARE',
    'SELECT a FROM t LOCK IN SHARE MODE',
    "SELECT nextval('s')",
    'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d',
    'SELECT a INTO b FROM t',
    'BEGIN',
  ])
    assert.equal(readsOnly(sql), false, sql);
});
