/** One clock alarm a DueQueue sets for its earliest time (a timerfd, or a Node timer). */
export interface Alarm {
  /** Rings at `at` (performance.now() milliseconds) or later, in place of the time set before. */
  set(at: number): void;
  /** Rings no more: nothing is due. */
  clear(): void;
}

/**
 * Wake-ups at given times, several owners' in one binary min-heap (parallel arrays: nothing is
 * allocated per wake-up), with one alarm set for the earliest. The alarm's owner calls ring() when
 * it goes off; an alarm that rings early (Node's timers can) wakes nothing and is set again.
 *
 * The heap's size is kept apart from its arrays' lengths, which never shrink: V8 gives an array
 * cut to length 0 a fresh backing store when it grows again, and a queue that empties at every
 * wake-up (a few terminals under -R) then allocated three of them each time, about 450 bytes.
 */
export class DueQueue {
  private readonly times: number[] = [];
  private readonly wakes: ((() => void) | undefined)[] = [];
  private readonly owners: (object | undefined)[] = [];
  private count = 0;
  /** The time the alarm is set for; Infinity when it is not. */
  private alarmAt = Infinity;
  private ringing = false;

  constructor(private readonly alarm: Alarm) {}

  get size(): number {
    return this.count;
  }

  /** Calls wake() at ring() once `at` has come, or at wakeAll(owner). */
  add(at: number, wake: () => void, owner: object): void {
    const { times, wakes, owners } = this;
    let i = this.count++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (times[parent]! <= at) break;
      times[i] = times[parent]!;
      wakes[i] = wakes[parent]!;
      owners[i] = owners[parent]!;
      i = parent;
    }
    times[i] = at;
    wakes[i] = wake;
    owners[i] = owner;
    if (at < this.alarmAt && !this.ringing) {
      this.alarmAt = at;
      this.alarm.set(at);
    }
  }

  /**
   * The alarm went off: wakes everything due by `now`, then sets the alarm for the earliest left,
   * or clears it when nothing is left: every ring is answered with one set() or clear() (the
   * reactor's timer counts on it to take back its expiry).
   */
  ring(now: number): void {
    this.ringing = true;
    while (this.count > 0 && this.times[0]! <= now) this.pop()();
    this.ringing = false;
    this.alarmAt = this.count > 0 ? this.times[0]! : Infinity;
    if (this.alarmAt === Infinity) this.alarm.clear();
    else this.alarm.set(this.alarmAt);
  }

  /** Wakes every wake-up of `owner` now, whatever its time (its run stops). */
  wakeAll(owner: object): void {
    const due: (() => void)[] = [];
    const kept: [number, () => void, object][] = [];
    for (let i = 0; i < this.count; i++) {
      if (this.owners[i] === owner) due.push(this.wakes[i]!);
      else kept.push([this.times[i]!, this.wakes[i]!, this.owners[i]!]);
    }
    if (due.length === 0) return;
    this.wakes.fill(undefined, 0, this.count);
    this.owners.fill(undefined, 0, this.count);
    this.count = 0;
    this.ringing = true;
    for (const [at, wake, other] of kept) this.add(at, wake, other);
    this.ringing = false;
    for (const wake of due) wake();
    this.setAlarm();
  }

  private pop(): () => void {
    const { times, wakes, owners } = this;
    const first = wakes[0]!;
    const last = --this.count;
    const at = times[last]!;
    const wake = wakes[last]!;
    const owner = owners[last]!;
    // Nothing kept alive by a slot past the heap's end.
    wakes[last] = undefined;
    owners[last] = undefined;
    if (last === 0) return first;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= last) break;
      if (child + 1 < last && times[child + 1]! < times[child]!) child++;
      if (times[child]! >= at) break;
      times[i] = times[child]!;
      wakes[i] = wakes[child]!;
      owners[i] = owners[child]!;
      i = child;
    }
    times[i] = at;
    wakes[i] = wake;
    owners[i] = owner;
    return first;
  }

  private setAlarm(): void {
    const next = this.count > 0 ? this.times[0]! : Infinity;
    if (next === this.alarmAt) return;
    this.alarmAt = next;
    if (next === Infinity) this.alarm.clear();
    else this.alarm.set(next);
  }
}
