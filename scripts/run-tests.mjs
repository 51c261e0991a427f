#!/usr/bin/env node
// Runs the compiled test files (dist/test/**/*.test.js) for `npm test`, in two phases:
//  1. the pure unit tests listed in UNIT_TESTS, two files at a time: they start no server, connect
//     to nothing, kill nothing and measure no time, so a neighbour cannot change what they check;
//  2. every other file (servers, CLI runs, rates and pacing, latencies, crashes, and any file not
//     listed here) alone, one at a time, as before.
// A file belongs in UNIT_TESTS only if all of that holds; when in doubt, leave it out (it then runs
// alone, which is only slower). Output is node's own test reporter (spec, or --reporter tap), then
// one summary of both phases with the total time; the exit status is non-zero on any failure.
// The environment (CI=true among it) is passed to the test processes, with HEADROOM_TEST_CACHE: a
// folder for the run's shared fixtures (test/helpers/data-template.ts: the throwaway servers' fresh
// data directories, made once and copied), removed at the end unless it was given.
//
// Usage: node scripts/run-tests.mjs [--reporter spec|tap] [--list] [dist/test/FILE.test.js ...]
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TESTS = path.join(ROOT, 'dist', 'test');

/**
 * Pure unit tests (paths under dist/test): parsers, config, option parsing, fixtures; and CLI runs
 * that end before any connection (help, pgbench's refusals of its command lines and scripts).
 */
const UNIT_TESTS = [
  // The longest first (about half the phase), so that the others run beside it.
  'pgbench-tap/no-server.test.js',
  'architecture/dbms-branches.test.js',
  'capacity/plan.test.js',
  'cli/args.test.js',
  'cli/help.test.js',
  'common/random.test.js',
  'config/clients.test.js',
  'config/target-params.test.js',
  'config/target.test.js',
  'drivers/encoding.test.js',
  'drivers/firebird-errors.test.js',
  'drivers/framer.test.js',
  'drivers/mariadb-handshake.test.js',
  'drivers/mariadb-packets.test.js',
  'drivers/postgres-messages.test.js',
  'drivers/wire-encoding.test.js',
  'engine/classify.test.js',
  'engine/transaction-log.test.js',
  'metrics/histogram.test.js',
  'metrics/recorder.test.js',
  'module/thresholds-and-demand.test.js',
  'reports/chain-reference.test.js',
  'result/sweep-knee.test.js',
  'workloads/chain-dialect.test.js',
  'workloads/chain-generator.test.js',
  'workloads/pgbench-script/distributions.test.js',
  'workloads/pgbench-script/expressions.test.js',
  'workloads/pgbench-script/script-parse.test.js',
  'workloads/tpcc-values.test.js',
];

// A test that hangs (a protocol client waiting for an answer that never comes) fails after this
// long instead of holding the whole run until CI's limit; the slowest test takes about 100 s.
const TEST_TIMEOUT_MS = 600_000;

function fail(message) {
  process.stderr.write(`run-tests: ${message}\n`);
  process.exit(2);
}

/** Every *.test.js under `dir`, relative to TESTS, sorted (helpers are not test files). */
function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(full));
    else if (entry.name.endsWith('.test.js')) found.push(path.relative(TESTS, full).split(path.sep).join('/'));
  }
  return found.sort();
}

function parseArgs(argv) {
  const options = { reporter: 'spec', list: false, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--list') options.list = true;
    else if (arg === '--reporter') options.reporter = argv[++i] ?? fail('--reporter needs a value: spec or tap');
    else if (arg.startsWith('--')) fail(`unknown option ${arg}: the options are --reporter spec|tap and --list`);
    else options.files.push(arg);
  }
  if (!['spec', 'tap'].includes(options.reporter)) fail(`--reporter ${options.reporter}: use spec or tap`);
  return options;
}

/** Runs `files` in one node --test process at `concurrency`; resolves to its counts and exit code. */
function runPhase(files, concurrency, reporter) {
  return new Promise((resolve) => {
    const args = [
      '--test',
      `--test-concurrency=${concurrency}`,
      `--test-timeout=${TEST_TIMEOUT_MS}`,
      `--test-reporter=${reporter}`,
      ...files.map((f) => path.join(TESTS, f)),
    ];
    const child = spawn(process.execPath, args, { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'inherit'] });
    const counts = {};
    let pending = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        // The run's closing counts: "# tests 12" (tap) or "ℹ tests 12" (spec), unindented.
        const m = /^(?:#|\u2139) (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)\s*$/.exec(line);
        if (m) counts[m[1]] = Number(m[2]);
      }
    });
    child.on('close', (code, signal) => resolve({ counts, code: code ?? 1, signal }));
  });
}

const options = parseArgs(process.argv.slice(2));
if (!existsSync(TESTS)) fail(`${path.relative(ROOT, TESTS)} is missing: build first (npx tsc -p tsconfig.json)`);
const all = findTests(TESTS);
for (const unit of UNIT_TESTS) {
  if (!all.includes(unit)) fail(`UNIT_TESTS lists ${unit}, which is not in dist/test: remove it from scripts/run-tests.mjs or rebuild`);
}
const chosen =
  options.files.length === 0
    ? all
    : options.files.map((f) => {
        const relative = path.relative(TESTS, path.resolve(f)).split(path.sep).join('/');
        if (!all.includes(relative)) fail(`${f} is not a test file under dist/test (a *.test.js file)`);
        return relative;
      });
const unit = UNIT_TESTS.filter((f) => chosen.includes(f));
const alone = chosen.filter((f) => !UNIT_TESTS.includes(f));

if (options.list) {
  for (const f of unit) console.log(`two at a time  ${f}`);
  for (const f of alone) console.log(`alone          ${f}`);
  process.exit(0);
}

let cache = process.env.HEADROOM_TEST_CACHE;
if (!cache) {
  cache = mkdtempSync(path.join(tmpdir(), 'headroom-test-cache-'));
  chmodSync(cache, 0o755); // the throwaway servers' users read their templates in it
  process.env.HEADROOM_TEST_CACHE = cache;
  const removeCache = () => rmSync(cache, { recursive: true, force: true });
  process.on('exit', removeCache);
}
// Ctrl-C reaches the test processes too: the runner lets them end, starts no further phase, and
// exits 130 (removing the cache on the way out).
let interrupted = false;
process.on('SIGINT', () => (interrupted = true));

const started = Date.now();
const phases = [];
if (unit.length > 0) phases.push({ name: `${unit.length} unit test files, two at a time`, ...(await runPhase(unit, 2, options.reporter)) });
if (alone.length > 0 && !interrupted) phases.push({ name: `${alone.length} files one at a time`, ...(await runPhase(alone, 1, options.reporter)) });
const seconds = ((Date.now() - started) / 1000).toFixed(1);

const total = {};
for (const phase of phases) for (const [key, n] of Object.entries(phase.counts)) total[key] = (total[key] ?? 0) + n;
const failed = phases.filter((p) => p.code !== 0 || (p.counts.fail ?? 0) > 0 || p.counts.tests === undefined);
console.log('');
console.log('# run-tests summary');
for (const p of phases) {
  const c = p.counts;
  const outcome = p.signal ? `killed by ${p.signal}` : `exit ${p.code}`;
  console.log(`#   ${p.name}: ${c.tests ?? '?'} tests, ${c.pass ?? '?'} pass, ${c.fail ?? '?'} fail, ${c.skipped ?? 0} skipped (${outcome})`);
}
console.log(
  `# total: ${chosen.length} files, ${total.tests ?? 0} tests, ${total.pass ?? 0} pass, ${total.fail ?? 0} fail, ` +
    `${total.cancelled ?? 0} cancelled, ${total.skipped ?? 0} skipped, ${total.todo ?? 0} todo, in ${seconds} s`,
);
if (failed.length > 0) console.log(`# FAILED: ${failed.map((p) => p.name).join('; ')}`);
if (interrupted) console.log('# interrupted');
process.exit(interrupted ? 130 : failed.length > 0 ? 1 : 0);
