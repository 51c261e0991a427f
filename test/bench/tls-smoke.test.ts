import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chownSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startThrowawayPostgres, throwawayPostgresUnavailable } from '../helpers/throwaway-postgres.js';
import { makeCertificates, opensslUnavailable } from '../helpers/tls-certificates.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

const EFFICIENCY_BENCH = fileURLToPath(new URL('../../../bench/client-efficiency.mjs', import.meta.url));

/** A printed ratio against the one its printed figures give: they are rounded, so to within 2%. */
const close = (printed: number, exact: number): boolean => Math.abs(printed - exact) <= 0.02 * exact + 0.005;

function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [EFFICIENCY_BENCH, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * Not a benchmark: a one-second run of `client-efficiency.mjs --tls` against a throwaway
 * PostgreSQL with ssl = on, proving both pgbench comparisons run plaintext and over TLS (the
 * script itself refuses a tls row whose headroom run was not on the tls transport).
 */
test('bench/client-efficiency.mjs --tls prints the pgbench ratios over TLS beside the plaintext ones', async (t) => {
  if (skipOrFail(t, throwawayPostgresUnavailable() ?? opensslUnavailable())) return;
  const certs = makeCertificates('unused');
  t.after(() => certs.remove());
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
  chownSync(certs.server.key, uid, gid);
  const cluster = await startThrowawayPostgres(
    ['host all all 127.0.0.1/32 trust'],
    [],
    ['ssl = on', `ssl_cert_file = '${certs.server.cert}'`, `ssl_key_file = '${certs.server.key}'`],
  );
  t.after(() => cluster.stop());
  const args = [
    '--pg-db',
    `postgres://postgres@127.0.0.1:${cluster.port}/headroom_eff`,
    '--tests',
    'pgbench:select-only,pgbench:tpcb-like',
    '--tls',
    '--rounds',
    '1',
    '--time',
    '1',
    '--clients',
    '2',
    '--scale',
    '1',
  ];
  const child = await run(args);
  assert.equal(child.status, 0, child.stderr);
  t.diagnostic(child.stdout);
  const number = ' +([\\d.]+)';
  for (const script of ['select-only', 'tpcb-like']) {
    for (const transport of ['native', 'tls']) {
      const row = new RegExp(`^pgbench ${script} +${transport}${number.repeat(7)}$`, 'm').exec(child.stdout);
      assert.ok(row, `no pgbench ${script} ${transport} row in:\n${child.stdout}`);
      const [peerTps, ourTps, tpsRatio, peerCpu, ourCpu, , cpuRatio] = row.slice(1).map(Number);
      assert.ok(peerTps! > 0 && ourTps! > 0 && peerCpu! > 0 && ourCpu! > 0, row[0]);
      assert.ok(close(tpsRatio!, ourTps! / peerTps!) && close(cpuRatio!, ourCpu! / peerCpu!), `ratios must follow from the figures: ${row[0]}`);
    }
    const beside = new RegExp(`^pgbench ${script}${number.repeat(4)}$`, 'm').exec(child.stdout);
    assert.ok(beside, `no TLS-beside-plaintext row for ${script} in:\n${child.stdout}`);
  }
});
