/**
 * Lets one transaction at a time through, in arrival order. Terminals of a blocking driver
 * (better-sqlite3) share one: two SQLite connections in one thread must never interleave
 * statements, or the second writer would wait out busy_timeout on a lock that the first, stuck
 * behind it on the same thread, can never release.
 */
export class Gate {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves when it is the caller's turn, with the function that lets the next one in. */
  async enter(): Promise<() => void> {
    let leave!: () => void;
    const previous = this.tail;
    this.tail = new Promise<void>((resolve) => (leave = resolve));
    await previous;
    return leave;
  }
}
