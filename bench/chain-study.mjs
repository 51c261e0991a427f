#!/usr/bin/env node
// The chain study's protocol on one database: a faithful load (its ten timed phases), then three
// distributed runs in a row, each terminal doing one client batch / terminals units, so the
// three runs add about one client batch of operations each (chain-model.md, "Runs"); then, with
// --localized 10,20,40, localized runs at those terminal counts, one batch / 33 / terminals units
// each. Prints each load phase and each run's study line. Not a test: at -s full it loads
// 12.5 M addresses. `headroom experiment chain-study` runs the same sequence from the CLI.
//
//   node bench/chain-study.mjs --db postgres://postgres@127.0.0.1:5432/headroom_chain
//        [--scale 1/100] [--clients 33] [--runs 3] [--load faithful] [--localized 10,20,40]
//
// The study used 33 terminals on PostgreSQL and 150 on MariaDB.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { headroom } from './lib/headroom-cli.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    scale: { type: 'string', default: '1/100' },
    clients: { type: 'string', default: '33' },
    runs: { type: 'string', default: '3' },
    load: { type: 'string', default: 'faithful' },
    localized: { type: 'string', default: '' },
  },
});
if (!values.db) {
  console.error('usage: node bench/chain-study.mjs --db URL [--scale 1/100] [--clients 33] [--runs 3] [--load faithful]');
  process.exit(2);
}
const { chainSizes, parseChainScale } = await import(new URL('../dist/src/workloads/chain/sizes.js', import.meta.url).href);
const work = mkdtempSync(path.join(tmpdir(), 'headroom-chain-study-'));

try {
  const clients = Number(values.clients);
  const batch = chainSizes(parseChainScale(values.scale)).clientsPerBatch;
  const units = Math.max(1, Math.floor(batch / clients));
  const init = headroom(['init', 'chain', '--db', values.db, '-s', values.scale, '--load', values.load]);
  process.stdout.write(
    init.stderr
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .join('\n') + '\n',
  );
  const measure = (label, mode, terminals, perTerminal) => {
    const out = path.join(work, `${label.replace(/\W+/g, '-')}.json`);
    headroom(['run', 'chain', '--db', values.db, '--mode', mode, '-c', String(terminals), '-t', String(perTerminal), '-P', '0', '--max-tries', '3', '-o', out]);
    const s = JSON.parse(readFileSync(out, 'utf8')).summary;
    // The study's Total time (from before the first connection), with headroom's tps beside it.
    const ms = s.totalTime?.ms ?? s.measuredSeconds * 1000;
    console.log(
      `${label}: ${terminals} terminals x ${perTerminal} units; Total time: ${Math.round(ms)} ms = ${(ms / s.transactions).toFixed(3)} ms/tr = ` +
        `${((s.transactions * 1000) / ms).toFixed(1)} tr/sec (tps ${s.tps.toFixed(1)}); ` +
        `maxWait ${s.latencyMs.max.toFixed(1)} ms, avgWait ${s.latencyMs.avg.toFixed(3)} ms, failed ${s.failed}`,
    );
  };
  for (let n = 1; n <= Number(values.runs); n++) measure(`distributed run ${n}`, 'distributed', clients, units);
  for (const terminals of values.localized.split(',').filter(Boolean).map(Number)) {
    measure(`localized ${terminals}`, 'localized', terminals, Math.max(1, Math.floor(batch / 33 / terminals)));
  }
  const check = headroom(['check', 'chain', '--db', values.db]);
  process.stdout.write(check.stdout.split('\n').at(-2) + '\n');
} finally {
  rmSync(work, { recursive: true, force: true });
}
