import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI, runCli, UNBUNDLED_CLI } from '../helpers/cli.js';

/*
 * Start-up is paid by every command: each module Node.js loads costs CPU before the first
 * transaction (about 1 ms of a busy machine's CPU apiece), so a short run (-t 100, a smoke test,
 * this suite's CLI runs) pays for all of them. CPU time itself cannot be asserted on a shared CI
 * machine without flaking; the number of modules a command loads can, and it is what grows when
 * a static import pulls a whole layer in again.
 *
 * The modules are counted in tsc's output (dist/src), where each is a file of its own; the bin
 * runs the bundle (scripts/bundle.mjs), whose chunks follow the same dynamic imports, so a module
 * loaded here where it is not used is in what the bin loads too. The bundle's own files are
 * counted as well: each costs the loader's resolving and linking, which is why there is a bundle.
 *
 * Each bound is a little above what the command loads now, so that only a real regression (a
 * verb, workload, driver, report or the agents' code loaded where it is not used) fails it. When
 * a command needs more modules for a reason, raise its bound here and say why.
 */
const BOUNDS = {
  /** bin, main, the option and error types, the version, redact, the verbs' names: 13 now. */
  version: 15,
  /** headroom pgbench's command line and --help, with config/target's URL grammars: 44 now. */
  pgbenchHelp: 48,
  /** headroom run's options (every workload's own options among them) and the run pipeline it imports: 116 now. */
  runHelp: 125,
  /** A whole pgbench -t 1 on SQLite: tpcb with pgbench's interpreter, SQLite's driver, the engine, the result: 148 now. */
  pgbenchRun: 160,
  /** The same run through the bin: the bundle's files it loads (27 now; split at every dynamic import without merging, 67). */
  pgbenchRunBundleFiles: 35,
};

/** Modules that none of the commands here use; one loaded means a static import where a dynamic one belongs. */
const UNUSED = [
  /\/workloads\/(tpcc|chain|kv|peak)\/index\.js$/,
  /\/drivers\/(postgres|mariadb|firebird)\/driver\.js$/,
  /\/agents\/coordinator\.js$/,
  /\/module\/load-module\.js$/,
  /\/reports\/html\//,
  /\/experiments\//,
];

interface Loaded {
  /** headroom's own modules (dist/src). */
  own: string[];
  /** The bundle's files (dist/bundle), when the bin ran. */
  bundleFiles: string[];
  /** npm packages imported (CommonJS files a package requires inside itself are not seen). */
  packages: string[];
}

/** Loader hooks that append each module's URL to the file in HEADROOM_TEST_MODULE_LOG. */
function hooksFolder(t: { after(fn: () => void): void }): { dir: string; register: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'headroom-startup-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const hooks = path.join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    "import { appendFileSync } from 'node:fs';\n" +
      'export async function load(url, context, next) {\n' +
      '  appendFileSync(process.env.HEADROOM_TEST_MODULE_LOG, `${url}\\n`);\n' +
      '  return next(url, context);\n' +
      '}\n',
  );
  const register = path.join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  return { dir, register };
}

/** Runs the CLI with the hooks and answers what it loaded; the command must succeed. */
async function modulesOf(hooks: { dir: string; register: string }, args: readonly string[], cwd: string, cli = UNBUNDLED_CLI): Promise<Loaded> {
  const log = path.join(hooks.dir, `modules-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', pathToFileURL(hooks.register).href, cli, ...args], {
      cwd,
      env: { ...process.env, DATABASE_URL: undefined, HEADROOM_TEST_MODULE_LOG: log },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
  assert.equal(code, 0, `headroom ${args.join(' ')}: ${stderr}`);
  const urls = [
    ...new Set(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((url) => url.startsWith('file:')),
    ),
  ];
  const own = urls.filter((url) => url.includes('/dist/src/') && !url.includes('/node_modules/'));
  const packages = [...new Set(urls.flatMap((url) => /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []))].sort();
  const bundleFiles = urls.filter((url) => url.includes('/dist/bundle/') && !url.includes('/node_modules/'));
  return { own, packages, bundleFiles };
}

function assertWithin(what: string, loaded: Loaded, bound: number): void {
  const list = loaded.own.map((url) => url.replace(/.*\/dist\/src\//, '')).join(' ');
  assert.ok(loaded.own.length <= bound, `${what} loads ${loaded.own.length} of headroom's modules, more than its bound of ${bound}: ${list}`);
  for (const pattern of UNUSED) {
    const stray = loaded.own.find((url) => pattern.test(url));
    assert.equal(stray, undefined, `${what} loads ${stray}, which it does not use`);
  }
}

test('headroom --version and --help load a dozen modules and no npm package', async (t) => {
  const hooks = hooksFolder(t);
  for (const args of [['--version'], ['--help']]) {
    const loaded = await modulesOf(hooks, args, hooks.dir);
    assertWithin(`headroom ${args.join(' ')}`, loaded, BOUNDS.version);
    assert.deepEqual(loaded.packages, [], `headroom ${args.join(' ')} imports npm packages`);
    // The hooks see headroom's modules at all: a count of zero would pass any bound.
    assert.ok(loaded.own.some((url) => url.endsWith('/cli/main.js')));
  }
});

test("option parsing loads only the verb's own code: headroom pgbench --help and headroom run --help", async (t) => {
  const hooks = hooksFolder(t);
  const pgbench = await modulesOf(hooks, ['pgbench', '--help'], hooks.dir);
  assertWithin('headroom pgbench --help', pgbench, BOUNDS.pgbenchHelp);
  assert.deepEqual(pgbench.packages, []);
  const run = await modulesOf(hooks, ['run', '--help'], hooks.dir);
  assertWithin('headroom run --help', run, BOUNDS.runHelp);
  assert.deepEqual(run.packages, []);
  // The run pipeline is no part of pgbench's command line until a run starts.
  assert.ok(!pgbench.own.some((url) => url.endsWith('/session/run.js')), 'headroom pgbench --help loads the run pipeline');
});

test('headroom pgbench -t 1 on SQLite loads one workload, one driver and better-sqlite3 alone of the npm packages', async (t) => {
  const hooks = hooksFolder(t);
  const url = `sqlite:${path.join(hooks.dir, 'bench.db')}`;
  const init = await runCli(['pgbench', '-i', '-q', url], { cwd: hooks.dir });
  assert.equal(init.code, 0, init.stderr);
  const loaded = await modulesOf(hooks, ['pgbench', '-t', '1', url], hooks.dir);
  assertWithin('headroom pgbench -t 1', loaded, BOUNDS.pgbenchRun);
  assert.deepEqual(loaded.packages, ['better-sqlite3']);
  // The run did run: the workload and SQLite's driver are among what it loaded.
  assert.ok(loaded.own.some((url) => url.endsWith('/workloads/tpcb/index.js')));
  assert.ok(loaded.own.some((url) => url.endsWith('/drivers/sqlite/driver.js')));

  const bundled = await modulesOf(hooks, ['pgbench', '-t', '1', url], hooks.dir, CLI);
  const names = bundled.bundleFiles.map((file) => path.basename(file)).join(' ');
  assert.ok(
    bundled.bundleFiles.some((file) => file.endsWith('/code/bin.js')),
    `the bin's run loaded no bundle file: ${names}`,
  );
  assert.ok(
    bundled.bundleFiles.length <= BOUNDS.pgbenchRunBundleFiles,
    `headroom pgbench -t 1 loads ${bundled.bundleFiles.length} of the bundle's files, more than its bound of ${BOUNDS.pgbenchRunBundleFiles}: ${names}`,
  );
  assert.deepEqual(bundled.packages, ['better-sqlite3']);
});
