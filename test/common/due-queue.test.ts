import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DueQueue } from '../../src/common/due-queue.js';
import { collectGarbage } from '../helpers/collect-garbage.js';

/** A queue whose alarm only records what it was set to (Infinity: cleared). */
function queue(): { q: DueQueue; alarms: number[] } {
  const alarms: number[] = [];
  const q = new DueQueue({ set: (at) => alarms.push(at), clear: () => alarms.push(Infinity) });
  return { q, alarms };
}

test('a DueQueue wakes what is due at each ring in time order, and keeps its one alarm at the earliest time left', () => {
  const { q, alarms } = queue();
  const woken: string[] = [];
  const owner = {};
  // Random order, two equal times, one far out.
  const times: [number, string][] = [
    [30, 'c'],
    [10, 'a'],
    [50, 'e'],
    [20, 'b'],
    [40, 'd'],
    [20, 'b2'],
    [1000, 'z'],
  ];
  for (const [at, name] of times) q.add(at, () => woken.push(name), owner);
  // Set again only when an earlier time came: 30, then 10.
  assert.deepEqual(alarms, [30, 10]);
  q.ring(9.999);
  assert.deepEqual(woken, [], 'an alarm that rings early wakes nothing');
  assert.deepEqual(alarms, [30, 10, 10], '... and is set again for the same time');
  q.ring(20);
  assert.deepEqual(woken.slice(0, 1), ['a']);
  assert.deepEqual(woken.slice(1).sort(), ['b', 'b2']);
  assert.equal(alarms.at(-1), 30);
  q.ring(45);
  assert.deepEqual(woken.slice(3), ['c', 'd']);
  assert.equal(alarms.at(-1), 50);
  q.ring(2000);
  assert.deepEqual(woken.slice(5), ['e', 'z']);
  assert.equal(q.size, 0);
  assert.equal(alarms.at(-1), Infinity, 'nothing left: every ring is answered, here by clearing the alarm');
});

test("wakeAll(owner) wakes that owner's wake-ups at once and leaves the others' where they were", () => {
  const { q, alarms } = queue();
  const woken: string[] = [];
  const stopping = {};
  const other = {};
  q.add(5, () => woken.push('stop-5'), stopping);
  q.add(7, () => woken.push('other-7'), other);
  q.add(3, () => woken.push('stop-3'), stopping);
  q.add(9, () => woken.push('other-9'), other);
  assert.equal(alarms.at(-1), 3);
  q.wakeAll(stopping);
  assert.deepEqual(woken.sort(), ['stop-3', 'stop-5']);
  assert.equal(alarms.at(-1), 7, 'the alarm moves to the earliest time left');
  q.ring(8);
  assert.deepEqual(woken.slice(2), ['other-7']);
  q.wakeAll(other);
  assert.deepEqual(woken.slice(3), ['other-9']);
  assert.equal(alarms.at(-1), Infinity, 'nothing left: the alarm is cleared');
  assert.equal(q.size, 0);
});

test('a DueQueue keeps heap order over many random times', () => {
  const { q } = queue();
  const woken: number[] = [];
  let seed = 7;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 1000;
  const owner = {};
  for (let i = 0; i < 500; i++) {
    const at = random();
    q.add(at, () => woken.push(at), owner);
  }
  for (let now = 0; now <= 1000; now += 37) q.ring(now);
  assert.equal(woken.length, 500);
  assert.deepEqual(
    woken,
    [...woken].sort((a, b) => a - b),
  );
});

test('a DueQueue emptied and filled again, over and over, keeps its order and its size, and lets go of what it woke', async () => {
  const { q } = queue();
  const owner = {};
  const woken: number[] = [];
  const expected: number[] = [];
  for (let round = 0; round < 100; round++) {
    // Each round empties the queue (as a few terminals under -R do at each wake-up), some rounds wider.
    const times = Array.from({ length: 1 + (round % 7) }, (_, i) => round * 100 + ((i * 37) % 11));
    for (const at of times) q.add(at, () => woken.push(at), owner);
    assert.equal(q.size, times.length);
    q.ring(round * 100 + 100);
    assert.equal(q.size, 0);
    expected.push(...times.sort((a, b) => a - b));
  }
  assert.deepEqual(woken, expected);
  // Five wake-ups called, then one more added and called: the slots past the heap's end keep none of them alive.
  const called: WeakRef<() => void>[] = [];
  (() => {
    for (let i = 0; i < 5; i++) {
      const wake = (): void => {};
      called.push(new WeakRef(wake));
      q.add(20_000 + i, wake, owner);
    }
  })();
  q.ring(20_010);
  q.add(30_000, () => {}, owner);
  q.ring(30_000);
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  assert.deepEqual(
    called.map((ref) => ref.deref() === undefined),
    [true, true, true, true, true],
    'the queue still holds wake-ups it called',
  );
});
