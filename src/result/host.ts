import os from 'node:os';

export interface HostInfo {
  hostname: string;
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  os: string;
  node: string;
}

/** The machine the client ran on: results from different machines must say so. */
export function describeHost(): HostInfo {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
}
