/**
 * Keeps what a protocol parser could not use yet. A transport's buffer is reused after each
 * delivery, so a message cut at the end of a read is copied here and completed by the next one;
 * whole messages are parsed where they lie, without a copy.
 */
export class Framer {
  private carry = Buffer.allocUnsafe(0);
  private carried = 0;

  /**
   * `parse(buffer, start, end)` handles the whole messages in [start, end) and returns where the
   * first incomplete one begins (or `end`).
   */
  constructor(private readonly parse: (buffer: Buffer, start: number, end: number) => number) {}

  push(buffer: Buffer, start: number, end: number): void {
    if (this.carried === 0) {
      const used = this.parse(buffer, start, end);
      if (used < end) this.keep(buffer, used, end);
      return;
    }
    this.keep(buffer, start, end);
    const used = this.parse(this.carry, 0, this.carried);
    if (used > 0) {
      this.carry.copy(this.carry, 0, used, this.carried);
      this.carried -= used;
    }
    // One huge message grew the carry: let it go once it is used up.
    if (this.carried === 0 && this.carry.length > 1 << 20) this.carry = Buffer.allocUnsafe(0);
  }

  private keep(buffer: Buffer, start: number, end: number): void {
    const needed = this.carried + (end - start);
    if (needed > this.carry.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.carry.length * 2, 4096));
      this.carry.copy(grown, 0, 0, this.carried);
      this.carry = grown;
    }
    buffer.copy(this.carry, this.carried, start, end);
    this.carried = needed;
  }
}
