#!/usr/bin/env node
// Bundles the compiled CLI (dist/src, from tsc) into dist/bundle, which package.json's bin and
// exports point at: the command line and the module API that workload modules import.
//
// Why: every command starts by loading its modules, and Node resolves, reads and compiles each of
// dist/src's files apart (about 176 of them for `headroom pgbench -t 1`), which cost about a fifth
// of that command's CPU; a bundle is a few files. Verbs, workloads and drivers that a command does
// not use stay out of it: each dynamic import() is a chunk of its own, loaded when used.
//
// Layout: dist/bundle/index.js is the module API; dist/bundle/code/ holds the CLI's entry (bin.js),
// the -j worker's (worker.js) and the shared chunks. The code sits three folders below the package
// root as dist/src/LAYER/*.js does, and beside worker.js and one folder below index.js as
// engine/ and module/ are, so the paths the code takes from import.meta.url (package.json, the
// worker's file, the API for workload modules) hold in both. npm packages stay outside (imported
// from node_modules as before). dist/src stays as tsc wrote it: the tests import it, and
// `node dist/src/cli/bin.js` runs the same code unbundled.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'dist', 'bundle');

rmSync(OUT, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: {
    index: 'dist/src/index.js',
    'code/bin': 'dist/src/cli/bin.js',
    'code/worker': 'dist/src/engine/worker.js',
  },
  outdir: OUT,
  chunkNames: 'code/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // Not keepNames: it costs 20 ms at every start (a call per function and class to set its name).
  // Without it, a name two modules share is renamed in the bundle (parse2), which only --verbose's
  // stack traces show; nothing in headroom reads a function's or a class's name.
  logLevel: 'warning',
});
chmodSync(path.join(OUT, 'code', 'bin.js'), 0o755);
