import type { SeriesPoint } from '../engine/measurements.js';

/** What the live view writes to: a terminal, or anything that acts like one in tests. */
export interface LiveTerminal {
  write(text: string): unknown;
  columns?: number;
}

const SPARKS = '▁▂▃▄▅▆▇█';
const HISTORY = 40;

/**
 * A compact view of the run, redrawn in place once a second on a terminal: the progress lines
 * would scroll a long run's beginning away, and these few lines say what is happening now.
 */
export class LiveView {
  private drawn = 0;
  private finished = false;
  private readonly tps: number[] = [];

  constructor(
    private readonly terminal: LiveTerminal,
    private readonly heading: string,
    /** The run's length in seconds, when bounded by time; shown as "12 / 30 s". */
    private readonly plannedSeconds: number | undefined,
    private readonly warmupSeconds: number,
  ) {}

  update(point: SeriesPoint): void {
    if (this.finished) return;
    this.tps.push(point.tps);
    if (this.tps.length > HISTORY) this.tps.shift();
    const lines = frame(point, this.heading, this.plannedSeconds === undefined ? undefined : this.plannedSeconds + this.warmupSeconds, this.tps);
    const width = Math.max(20, (this.terminal.columns || 80) - 1);
    // Lines wider than the terminal would wrap, and then moving up by the line count would miss.
    const fitted = lines.map((l) => ([...l].length > width ? [...l].slice(0, width).join('') : l));
    const up = this.drawn > 0 ? `\r\x1b[${this.drawn}A` : '';
    this.terminal.write(`${up}${fitted.map((l) => `\x1b[2K${l}\n`).join('')}`);
    this.drawn = fitted.length;
  }

  /** Leaves the last frame where it is; later messages print below it. */
  finish(): void {
    this.finished = true;
  }
}

export function frame(point: SeriesPoint, heading: string, totalSeconds: number | undefined, tps: readonly number[]): string[] {
  const lat = point.latencyMs;
  const clock = `${point.t.toFixed(0)}${totalSeconds === undefined ? '' : ` / ${totalSeconds}`} s${point.phase === 'warmup' ? ' (warm-up, not counted)' : ''}`;
  const loop = point.eventLoopDelayMs;
  return [
    `${clock}  ${heading}`,
    `  tps      ${point.tps.toFixed(1).padStart(10)}  ${sparkline(tps)}`,
    `  latency  p50 ${ms(lat.p50)}  p99 ${ms(lat.p99)}  max ${ms(lat.max)}`,
    `  failed   ${point.failed}${point.retried > 0 ? `  retried ${point.retried}` : ''}${point.lagMs ? `  schedule lag ${ms(point.lagMs.avg)}` : ''}`,
    `  client   cpu ${point.clientCpuPercent.toFixed(0)}%${loop ? `  event-loop lag p99 ${ms(loop.p99)}  max ${ms(loop.max)}` : ''}`,
    ...(point.stalled
      ? [`  STALLED  no transaction ended for ${(point.stalled.silentMs / 1000).toFixed(1)} s; ${point.stalled.terminals} terminal(s) waiting`]
      : []),
  ];
}

function ms(value: number): string {
  return `${value < 10 ? value.toFixed(3) : value < 100 ? value.toFixed(2) : value.toFixed(0)} ms`;
}

/** Each value's height against the largest shown, so the line reads as "steady" or "dropping". */
export function sparkline(values: readonly number[]): string {
  const top = Math.max(...values, 0);
  if (top <= 0) return SPARKS[0]!.repeat(values.length);
  return values.map((v) => SPARKS[Math.min(SPARKS.length - 1, Math.round((v / top) * (SPARKS.length - 1)))]!).join('');
}
