import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { machineGrowth, parseCpuBusySeconds, parseDiskstats, physicalDisk, sampleMachine } from '../../src/observe/machine-sampler.js';

// A machine with an NVMe disk in two partitions, a SATA disk with one, LVM on top, a loop device and zram.
const DISKSTATS = [
  ' 259       0 nvme0n1 100 0 2000 10 50 0 8000 20 0 30 30 0 0 0 0 0 0',
  ' 259       1 nvme0n1p1 60 0 1200 5 30 0 5000 10 0 15 15 0 0 0 0 0 0',
  ' 259       2 nvme0n1p2 40 0 800 5 20 0 3000 10 0 15 15 0 0 0 0 0 0',
  '   8       0 sda 10 0 400 1 5 0 1000 2 0 3 3 0 0 0 0 0 0',
  '   8       1 sda1 10 0 400 1 5 0 1000 2 0 3 3 0 0 0 0 0 0',
  ' 253       0 dm-0 30 0 1000 3 25 0 4000 9 0 12 12 0 0 0 0 0 0',
  '   7       0 loop0 5 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0',
  ' 252       0 zram0 9 0 72 0 9 0 72 0 0 0 0 0 0 0 0 0 0',
].join('\n');

test('diskstats: each physical disk once, partitions and virtual devices (device-mapper, loop, zram) left out', (t) => {
  const sys = mkdtempSync(path.join(tmpdir(), 'headroom-sysblock-'));
  t.after(() => rmSync(sys, { recursive: true, force: true }));
  // /sys/block lists whole disks and virtual devices; only real disks have a device link.
  for (const name of ['nvme0n1', 'sda']) mkdirSync(path.join(sys, name, 'device'), { recursive: true });
  for (const name of ['dm-0', 'loop0', 'zram0']) mkdirSync(path.join(sys, name), { recursive: true });
  const disks = parseDiskstats(DISKSTATS, (name) => physicalDisk(name, sys));
  assert.deepEqual([...disks.keys()], ['nvme0n1', 'sda']);
  assert.deepEqual(disks.get('nvme0n1'), { readBytes: 2000 * 512, writeBytes: 8000 * 512 });
  // Without /sys, names decide the same way.
  const byName = parseDiskstats(DISKSTATS, (name) => physicalDisk(name, path.join(sys, 'absent')));
  assert.deepEqual([...byName.keys()], ['nvme0n1', 'sda']);
});

test('/proc/stat: busy time is every column but idle and iowait', () => {
  // user nice system idle iowait irq softirq steal guest guest_nice, in ticks of 1/100 s.
  assert.equal(parseCpuBusySeconds('cpu  100 20 30 5000 70 1 2 3 40 0\ncpu0 50 10 15 2500 35 0 1 1 20 0\n'), 1.56);
});

test("this machine: the disks' bytes written over an interval agree with /sys/block/DISK/stat read around it", () => {
  if (!existsSync('/proc/diskstats') || !existsSync('/sys/block')) return;
  // An independent reading of the kernel's counters: each whole disk's own stat file (sectors written: 7th field).
  const sysWritten = (): number =>
    readdirSync('/sys/block')
      .filter((name) => existsSync(`/sys/block/${name}/device`))
      .reduce((sum, name) => sum + Number(readFileSync(`/sys/block/${name}/stat`, 'utf8').trim().split(/\s+/)[6]) * 512, 0);
  const outerBefore = sysWritten();
  const before = sampleMachine()!;
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'headroom-disk-')), 'w');
  writeFileSync(file, Buffer.alloc(8 << 20, 1), { flush: true });
  const after = sampleMachine()!;
  const outerAfter = sysWritten();
  rmSync(path.dirname(file), { recursive: true, force: true });
  const grown = machineGrowth(before, after);
  assert.ok(grown.disks.length > 0, 'this machine has at least one physical disk');
  // Read inside the outer interval, so never more than it; the 8 MB flushed in between are in both.
  assert.ok(grown.writeBytes <= outerAfter - outerBefore, `${grown.writeBytes} within ${outerAfter - outerBefore}`);
  assert.ok(grown.writeBytes >= 8 << 20, `the 8 MB flushed were written to a disk: ${grown.writeBytes}`);
});
