import type { LoadProgress } from '../workloads/workload.js';

/** Where the load's progress goes: stderr, or anything that acts like it in tests. */
export interface ProgressTerminal {
  write(text: string): unknown;
  columns?: number;
}

/** A terminal's bar is redrawn at most this often; plain lines (logs, pipes) come this far apart. */
export const BAR_REDRAW_MS = 250;
export const LINE_EVERY_MS = 5_000;
const BAR_WIDTH = 24;

/** The figures a progress display shows, from one update and the seconds the phase has taken. */
export interface LoadRates {
  rowsPerSecond: number;
  megabytesPerSecond: number;
  /** Seconds left at the phase's rate so far; undefined without a known total or a rate. */
  etaSeconds: number | undefined;
  /** 0..1, undefined without a known total. */
  fraction: number | undefined;
}

export function loadRates(update: LoadProgress, seconds: number): LoadRates {
  const rowsPerSecond = seconds > 0 ? update.rowsDone / seconds : 0;
  const total = update.rowsTotal;
  const fraction = total === undefined || total <= 0 ? undefined : Math.min(1, update.rowsDone / total);
  return {
    rowsPerSecond,
    megabytesPerSecond: seconds > 0 ? update.bytesDone / 1e6 / seconds : 0,
    etaSeconds: total === undefined || rowsPerSecond <= 0 ? undefined : Math.max(0, total - update.rowsDone) / rowsPerSecond,
    fraction,
  };
}

/** 42 s, 4m05s, 1h02m. */
export function formatEta(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/**
 * One line for a terminal, at most `width` characters: "accounts [████░░░░] 52%  5,200,000 /
 * 10,000,000 rows  412,000 rows/s  38.2 MB/s  ETA 12 s". The bar shrinks (down to 8 cells, then
 * goes) before the figures do.
 */
export function progressBar(update: LoadProgress, seconds: number, width = 120): string {
  const r = loadRates(update, seconds);
  const rates = `${count(r.rowsPerSecond)} rows/s  ${r.megabytesPerSecond.toFixed(1)} MB/s`;
  if (r.fraction === undefined) return `${update.phase}  ${count(update.rowsDone)} rows  ${rates}`;
  const figures = `${(r.fraction * 100).toFixed(0).padStart(3)}%  ${count(update.rowsDone)} / ${count(update.rowsTotal!)} rows  ${rates}${r.etaSeconds === undefined ? '' : `  ETA ${formatEta(r.etaSeconds)}`}`;
  const cells = Math.min(BAR_WIDTH, width - update.phase.length - figures.length - 4);
  if (cells < 8) return `${update.phase} ${figures}`;
  const filled = Math.round(r.fraction * cells);
  return `${update.phase} [${'█'.repeat(filled)}${'░'.repeat(cells - filled)}] ${figures}`;
}

/** The same figures as a line for logs: "load accounts: 52%, 5,200,000 of 10,000,000 rows, ...". */
export function progressText(update: LoadProgress, seconds: number): string {
  const r = loadRates(update, seconds);
  const done =
    r.fraction === undefined
      ? `${count(update.rowsDone)} rows`
      : `${(r.fraction * 100).toFixed(0)}%, ${count(update.rowsDone)} of ${count(update.rowsTotal!)} rows`;
  return `load ${update.phase}: ${done}, ${count(r.rowsPerSecond)} rows/s, ${r.megabytesPerSecond.toFixed(1)} MB/s${r.etaSeconds === undefined ? '' : `, ETA ${formatEta(r.etaSeconds)}`}`;
}

/**
 * Draws a load's progress: on a terminal one bar redrawn in place (at most every BAR_REDRAW_MS),
 * elsewhere a plain line every LINE_EVERY_MS. Rates are over the phase so far, from its first
 * update. Call clear() before printing anything else, so the line replaces the bar instead of landing behind it.
 */
export class LoadProgressView {
  private phase: string | undefined;
  private phaseStart = 0;
  private lastDraw = -Infinity;
  private drawn = false;

  constructor(
    private readonly out: ProgressTerminal,
    private readonly tty: boolean,
    private readonly now: () => number = () => performance.now(),
  ) {}

  update(update: LoadProgress): void {
    const now = this.now();
    if (update.phase !== this.phase) {
      this.phase = update.phase;
      this.phaseStart = now;
      // A plain line only once the phase has run a while: short phases stay quiet.
      this.lastDraw = this.tty ? -Infinity : now;
    }
    const seconds = (now - this.phaseStart) / 1000;
    const last = update.rowsTotal !== undefined && update.rowsDone >= update.rowsTotal;
    if (this.tty) {
      if (now - this.lastDraw < BAR_REDRAW_MS && !last) return;
      const width = Math.max(20, (this.out.columns || 80) - 1);
      const line = [...progressBar(update, seconds, width)].slice(0, width).join('');
      this.out.write(`\r\x1b[2K${line}`);
      this.drawn = true;
    } else {
      if (now - this.lastDraw < LINE_EVERY_MS) return;
      this.out.write(`${progressText(update, seconds)}\n`);
    }
    this.lastDraw = now;
  }

  /** Removes the bar, so that a log line or whatever comes next starts on a clean line. */
  clear(): void {
    if (!this.drawn) return;
    this.out.write('\r\x1b[2K');
    this.drawn = false;
    this.lastDraw = -Infinity;
  }
}
