#!/usr/bin/env node
// Pools the raw results of several `JSON_OUT=file node run.mjs` invocations and
// prints, per cell, the median over all runs (the runs of one invocation are
// noisy on a shared 2-core machine; medians over many runs are steadier).
//
//   node summarize.mjs results1.json results2.json ...

import { readFileSync } from 'node:fs';

const files = process.argv.slice(2);
if (!files.length) {
  console.error('usage: node summarize.mjs results.json [more.json ...]');
  process.exit(2);
}
const all = files.flatMap((f) => JSON.parse(readFileSync(f, 'utf8')));
const med = (a) => {
  const s = [...a].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const keys = [...new Set(all.map((r) => `${r.cand}|${r.workload}|${r.conns}`))];
console.log('| candidate | workload | conns | runs | median client µs/txn | min–max | median user µs | median sys µs | median TPS | median server µs/txn |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const k of keys) {
  const rs = all.filter((r) => `${r.cand}|${r.workload}|${r.conns}` === k);
  const c = rs.map((r) => r.cliUs);
  console.log(
    `| ${k.split('|').join(' | ')} | ${rs.length} | ${med(c).toFixed(1)} | ${Math.min(...c).toFixed(0)}–${Math.max(...c).toFixed(0)} | ` +
      `${med(rs.map((r) => r.userUs / r.txns)).toFixed(1)} | ${med(rs.map((r) => r.sysUs / r.txns)).toFixed(1)} | ` +
      `${med(rs.map((r) => r.tps)).toFixed(0)} | ${med(rs.map((r) => r.srvUs)).toFixed(0)} |`,
  );
}
