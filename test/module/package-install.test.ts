import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * What a user outside a clone does: npm pack, then npm install -g of the tarball into an empty
 * prefix, then the installed `headroom` writes a starter module in an empty folder and runs it on
 * SQLite. Install scripts are allowed by name (npm 11 asks): better-sqlite3 installs its addon,
 * headroom-oltp builds its reactor. better-sqlite3 fetches a prebuilt binary where it can; where it
 * cannot (no network to its release host) it compiles SQLite, which takes over ten minutes on a
 * busy machine, so the test offers it the addon this clone's install built, as a local prebuild
 * of the same version (prebuild-install's npm_config_better_sqlite3_local_prebuilds): what a user
 * with the network gets. A tarball that resolves another version compiles, slower but the same.
 */
test('npm pack and npm install -g of the tarball give a headroom command that runs a workload module', { timeout: 20 * 60_000 }, () => {
  const work = mkdtempSync(path.join(tmpdir(), 'headroom-package-'));
  try {
    const npm = (args: string[], cwd: string): string =>
      execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_yes: 'true' } });
    // dist/ is built by the test run's tsc: the tarball takes it as it is.
    const tarball = path.join(work, npm(['pack', '--ignore-scripts', '--pack-destination', work], ROOT).trim().split('\n').at(-1)!);
    const prefix = path.join(work, 'global');
    const prebuilds = path.join(work, 'prebuilds');
    mkdirSync(prebuilds);
    const sqlite = path.join(ROOT, 'node_modules', 'better-sqlite3');
    const { version } = JSON.parse(readFileSync(path.join(sqlite, 'package.json'), 'utf8')) as { version: string };
    const prebuilt = path.join(prebuilds, `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
    execFileSync('tar', ['-czf', prebuilt, '-C', sqlite, 'build/Release/better_sqlite3.node']);
    process.env['npm_config_better_sqlite3_local_prebuilds'] = prebuilds;
    npm(
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--allow-scripts=headroom-oltp,better-sqlite3,esbuild', tarball],
      work,
    );
    const installed = path.join(prefix, 'lib', 'node_modules', 'headroom-oltp');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { name: string; exports: { '.': { types: string } } };
    assert.equal(manifest.name, 'headroom-oltp');
    assert.ok(existsSync(path.join(installed, manifest.exports['.'].types)), 'the API types (.d.ts) are in the package');
    const clean = path.join(work, 'clean');
    mkdirSync(clean);
    const headroom = path.join(prefix, 'bin', 'headroom');
    const env = { ...process.env, DATABASE_URL: undefined, PATH: `${path.join(prefix, 'bin')}:${process.env['PATH']}` };
    execFileSync(headroom, ['new', 'workload', 'pay'], { cwd: clean, env, encoding: 'utf8' });
    const out = execFileSync(headroom, ['run', './pay.ts', '-c', '2', '-t', '20', '-P', '0', '-o', 'result.json'], {
      cwd: clean,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.match(out, /status: completed/);
    const result = JSON.parse(readFileSync(path.join(clean, 'result.json'), 'utf8')) as {
      config: { workload: string; module: { path: string } };
      summary: { transactions: number };
      checks: { ok: boolean }[];
    };
    assert.equal(result.config.workload, 'pay');
    assert.equal(result.config.module.path, path.join(clean, 'pay.ts'));
    assert.equal(result.summary.transactions, 40);
    assert.ok(result.checks.every((c) => c.ok));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
