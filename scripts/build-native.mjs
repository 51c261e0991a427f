#!/usr/bin/env node
// Builds native/reactor.c (headroom's epoll socket reactor) with node-gyp, as `npm install` and
// `npm ci` do through the package's install script. It is an accelerator, not a requirement:
// where it cannot be built (not Linux, no C compiler) headroom runs on Node's sockets, so a
// failed build says so and exits 0. `--required` makes a failure fatal (CI wants the fast path).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const required = process.argv.includes('--required');
const say = (line) => process.stderr.write(`headroom: ${line}\n`);

function nodeGyp() {
  // npm tells install scripts where its own node-gyp is; outside npm, use the copy npm ships.
  if (process.env.npm_config_node_gyp) return [process.execPath, process.env.npm_config_node_gyp];
  const besideNpm = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (existsSync(besideNpm)) return [process.execPath, besideNpm];
  try {
    return [process.execPath, createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js')];
  } catch {
    return ['node-gyp'];
  }
}

if (process.platform !== 'linux') {
  say(`the native reactor is for Linux (epoll); on ${process.platform} headroom uses Node's sockets`);
  process.exit(0);
}
const [command, ...args] = nodeGyp();
// npm passes its nodedir (where Node's headers are) to install scripts; outside npm ask npm.
const nodedir = process.env.npm_config_nodedir || spawnSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8' }).stdout?.trim();
const withHeaders = nodedir && nodedir !== 'undefined' && nodedir !== 'null' ? [`--nodedir=${nodedir}`] : [];
const build = spawnSync(command, [...args, 'rebuild', ...withHeaders], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
if (build.status === 0) {
  say('built the native reactor (build/Release/headroom_reactor.node)');
  process.exit(0);
}
const why = `${build.error?.message ?? ''}${build.stderr ?? ''}`
  .trim()
  .split('\n')
  .filter((l) => /error|not found|ERR!/i.test(l))
  .slice(0, 3)
  .join(' | ');
say(
  `could not build the native reactor (${why || `node-gyp exited ${build.status}`}); headroom will use Node's sockets, which cost more client CPU per transaction`,
);
process.exit(required ? 1 : 0);
