import type { PgRandom } from './pg-random.js';
import type { Value } from './value.js';

/** One client's state while its script runs: variables by slot (see Variables), its random stream. */
export interface Frame {
  vars: (Value | undefined)[];
  random: PgRandom;
  /** The command running now (0-based, as pgbench numbers them), for debug()'s line. */
  command: number;
  /** debug() output goes here (stderr in a run). */
  debug(line: string): void;
}

/** Variable names of a script, each given a slot once, at compile time (\gset may add more at run time). */
export class Variables {
  readonly names: string[] = [];
  private readonly slots = new Map<string, number>();

  slot(name: string): number {
    let slot = this.slots.get(name);
    if (slot === undefined) {
      slot = this.names.length;
      this.names.push(name);
      this.slots.set(name, slot);
    }
    return slot;
  }

  has(name: string): boolean {
    return this.slots.has(name);
  }
}
