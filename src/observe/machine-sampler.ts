import { existsSync, readFileSync } from 'node:fs';

/** /proc/stat counts CPU time in USER_HZ ticks, 100 a second on every common platform. */
const TICKS_PER_SECOND = 100;
/** /proc/diskstats counts sectors of 512 bytes whatever the device's own sector size. */
const SECTOR_BYTES = 512;

/** The whole machine at one moment: every CPU's busy time, and what its disks read and wrote. */
export interface MachineSample {
  busyCpuSeconds: number;
  /** Whole physical disks only (see physicalDisk), by name. */
  disks: Map<string, { readBytes: number; writeBytes: number }>;
}

/** The busy CPU time of all the machine's CPUs: every /proc/stat column of the cpu line but idle and iowait. */
export function parseCpuBusySeconds(procStat: string): number {
  const line = /^cpu\s+(.*)$/m.exec(procStat)?.[1];
  if (line === undefined) throw new Error('no cpu line in /proc/stat');
  // user nice system idle iowait irq softirq steal (guest and guest_nice are already in user and nice).
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / TICKS_PER_SECOND;
}

/**
 * Bytes read and written per device in /proc/diskstats, kept only for the devices `keep` accepts.
 * Fields after the name: reads, merged, sectors read (3rd), ms, writes, merged, sectors written (7th).
 */
export function parseDiskstats(text: string, keep: (name: string) => boolean): Map<string, { readBytes: number; writeBytes: number }> {
  const disks = new Map<string, { readBytes: number; writeBytes: number }>();
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const name = fields[2];
    if (fields.length < 10 || name === undefined || !keep(name)) continue;
    disks.set(name, { readBytes: Number(fields[5]) * SECTOR_BYTES, writeBytes: Number(fields[9]) * SECTOR_BYTES });
  }
  return disks;
}

/**
 * A whole physical disk, counted once: /proc/diskstats also lists each disk's partitions (whose
 * I/O is the disk's too) and virtual block devices (loop, zram, ram, device-mapper, md), whose
 * I/O lands on a physical disk or in memory. A disk in /sys/block with a device link is physical;
 * partitions are not in /sys/block at all. Without /sys, names decide.
 */
export function physicalDisk(name: string, sysBlock = '/sys/block'): boolean {
  if (existsSync(sysBlock)) return existsSync(`${sysBlock}/${name}/device`);
  return (
    !/^(loop|ram|zram|dm-|md|sr|fd)/.test(name) && !/^(sd[a-z]+|vd[a-z]+|xvd[a-z]+|hd[a-z]+)\d+$/.test(name) && !/^(nvme\d+n\d+|mmcblk\d+)p\d+$/.test(name)
  );
}

/** The machine now, or undefined off Linux. */
export function sampleMachine(): MachineSample | undefined {
  try {
    return {
      busyCpuSeconds: parseCpuBusySeconds(readFileSync('/proc/stat', 'utf8')),
      disks: parseDiskstats(readFileSync('/proc/diskstats', 'utf8'), (name) => physicalDisk(name)),
    };
  } catch {
    return undefined;
  }
}

/** What the machine did between two samples: CPU seconds busy (all CPUs), and bytes its physical disks read and wrote. */
export function machineGrowth(before: MachineSample, after: MachineSample): { busyCpuSeconds: number; disks: string[]; readBytes: number; writeBytes: number } {
  let readBytes = 0;
  let writeBytes = 0;
  for (const [name, now] of after.disks) {
    const then = before.disks.get(name);
    if (!then) continue;
    readBytes += Math.max(0, now.readBytes - then.readBytes);
    writeBytes += Math.max(0, now.writeBytes - then.writeBytes);
  }
  return { busyCpuSeconds: Math.max(0, after.busyCpuSeconds - before.busyCpuSeconds), disks: [...after.disks.keys()], readBytes, writeBytes };
}
