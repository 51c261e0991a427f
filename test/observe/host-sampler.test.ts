import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { growthBetween, sampleProcesses, type ProcessSample } from '../../src/observe/host-sampler.js';
import { observePostgres } from '../../src/drivers/postgres/observe.js';
import { observeMariadb } from '../../src/drivers/mariadb/observe.js';
import { connectFresh } from '../helpers/databases.js';

const sample = (entries: [number, number][]): ProcessSample => ({
  byPid: new Map(entries.map(([pid, cpu]) => [pid, { cpuSeconds: cpu, readBytes: cpu * 10, writeBytes: cpu * 20 }])),
});

test('growth between samples is counted per process: an ended process never makes it negative, a new one counts from zero', () => {
  // pid 2 ended after 5 s of CPU, pid 3 started and used 1.5 s, pid 1 used 2 s more.
  const growth = growthBetween(sample([[1, 10], [2, 5]]), sample([[1, 12], [3, 1.5]]));
  assert.deepEqual(growth, { processes: 2, cpuSeconds: 3.5, readBytes: 35, writeBytes: 70 });
});

for (const dbms of ['postgres', 'mariadb'] as const) {
  test(`${dbms}: the server names its main process, and sampling counts only that server's processes`, async (t) => {
    const fresh = await connectFresh(t, dbms);
    if (!fresh) return;
    const observation = dbms === 'postgres' ? observePostgres(fresh.conn) : observeMariadb(fresh.conn);
    const root = await observation.serverPid!();
    assert.ok(root !== undefined, 'the server runs on this machine, so its main pid is known');
    const comm = readFileSync(`/proc/${root}/comm`, 'utf8').trim();
    assert.ok(observation.serverProcessNames.includes(comm), `pid ${root} is ${comm}`);
    const mine = sampleProcesses({ names: observation.serverProcessNames, rootPid: root })!;
    const byName = sampleProcesses({ names: observation.serverProcessNames, rootPid: undefined })!;
    assert.ok(mine.byPid.has(root) && mine.byPid.size >= 1);
    // Every process kept is the root or its child; the name-only sample holds them all (and maybe other servers').
    for (const pid of mine.byPid.keys()) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // a backend that ended since the sample (another session's connection)
      }
      assert.ok(byName.byPid.has(pid), `pid ${pid} is alive, so the name-only sample taken before holds it`);
      const parent = Number(stat.split(') ')[1]!.split(' ')[1]);
      assert.ok(pid === root || parent === root, `pid ${pid} (parent ${parent}) is not server ${root}'s`);
    }
  });
}
