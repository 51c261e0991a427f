#!/usr/bin/env node
// Bundles the compiled CLI (dist/src, from tsc) into dist/bundle, which package.json's bin and
// exports point at: the command line and the module API that workload modules import.
//
// Why: every command starts by loading its modules, and Node resolves, reads, compiles and links
// each file apart (about 0.5-1 ms apiece here, before any of its code runs): dist/src is about 176
// files for `headroom pgbench -t 1`. A bundle is a few files. Verbs, workloads and drivers that a
// command does not use stay out of it: each dynamic import() starts a chunk of its own, loaded when
// used. Rollup, not esbuild: with fifty dynamic imports, a chunk for each set of importers is over
// a hundred chunks (69 files for pgbench -t 1 on PostgreSQL); rollup merges the small ones
// (experimentalMinChunkSize) where that runs no module's top-level code in a command that did not
// run it before: 28 files, and 0.194 s of CPU for that command instead of 0.212 (medians of 30
// alternating runs, bench/startup.mjs). A command may now compile code it does not call
// (--version reads 107 KB instead of 23), which measured as nothing (0.060 s against 0.063).
// A name two modules share is renamed in the bundle (parse$1), which only --verbose's stack
// traces show; nothing in headroom reads a function's or a class's name.
//
// Layout: dist/bundle/index.js is the module API; dist/bundle/code/ holds the CLI's entry (bin.js),
// the -j worker's (worker.js) and the shared chunks. The code sits three folders below the package
// root as dist/src/LAYER/*.js does, and beside worker.js and one folder below index.js as
// engine/ and module/ are, so the paths the code takes from import.meta.url (package.json, the
// worker's file, the API for workload modules) hold in both. npm packages and Node's modules stay
// outside (imported from node_modules as before). dist/src stays as tsc wrote it: the tests import
// it, and `node dist/src/cli/bin.js` runs the same code unbundled.
import { rollup } from 'rollup';
import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'dist', 'bundle');
/** A chunk below this many bytes is merged into a larger one loaded wherever it is. */
const MIN_CHUNK_BYTES = 50_000;

rmSync(OUT, { recursive: true, force: true });
const bundle = await rollup({
  // rollup prints what it merged; the build says nothing unless something is wrong.
  logLevel: 'warn',
  input: {
    index: path.join(ROOT, 'dist/src/index.js'),
    'code/bin': path.join(ROOT, 'dist/src/cli/bin.js'),
    'code/worker': path.join(ROOT, 'dist/src/engine/worker.js'),
  },
  // headroom's own files are relative imports; everything else (node:*, npm packages) stays outside.
  external: (id, importer) => importer !== undefined && !id.startsWith('.') && !path.isAbsolute(id),
  onwarn(warning, warn) {
    // The layers import each other in cycles that ES modules allow (tsc's output runs the same way).
    if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
  },
});
await bundle.write({
  dir: OUT,
  format: 'es',
  entryFileNames: '[name].js',
  chunkFileNames: 'code/[name]-[hash].js',
  experimentalMinChunkSize: MIN_CHUNK_BYTES,
});
await bundle.close();
chmodSync(path.join(OUT, 'code', 'bin.js'), 0o755);
