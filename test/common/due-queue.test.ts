import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DueQueue } from '../../src/common/due-queue.js';

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
