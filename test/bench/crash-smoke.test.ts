import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

const BENCH = fileURLToPath(new URL('../../../bench/crash-durability.mjs', import.meta.url));

/**
 * Not the durability measurement (that is 20 rounds a DBMS, bench/crash-durability.mjs's default):
 * one short round on a PostgreSQL cluster of the script's own, proving that it still kills and
 * restarts the server mid-run, checks the journal and prints its row and its closing line.
 */
test('bench/crash-durability.mjs kills the server mid-run, checks the journal and prints the round', (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable())) return;
  const child = spawnSync(process.execPath, [BENCH, '--rounds', '1', '--dbms', 'postgres', '--time', '6', '--kill-from', '2'], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr + child.stdout);
  const row = /^ +1 +([\d.]+) +(\d+) +(\d+) +(\d+) \((\d+)\) +(\d+) +(\d+) +(\d+) +(\S+) +([\d.]+) +([\d.]+)/m.exec(child.stdout);
  assert.ok(row, `no row for round 1 in:\n${child.stdout}`);
  const [killedAt, acknowledged, , unknown, unknownKept, lost, , torn, balances, restart, outage] = row.slice(1);
  // Killed at the moment asked for (the timer may fire late on a busy machine, never early).
  assert.ok(Number(killedAt) >= 2 && Number(killedAt) < 6, row[0]);
  assert.ok(Number(acknowledged) > 0, `nothing was acknowledged before the kill: ${row[0]}`);
  assert.ok(Number(unknownKept) <= Number(unknown), row[0]);
  assert.equal(Number(lost), 0, child.stdout);
  assert.equal(Number(torn), 0, row[0]);
  assert.equal(balances, 'agree', row[0]);
  assert.ok(Number(restart) > 0 && Number(outage) > 0, `the crash shows as a restart and an outage: ${row[0]}`);
  assert.match(child.stdout, /^postgres: 1 rounds, 0 with lost > 0$/m);
});
