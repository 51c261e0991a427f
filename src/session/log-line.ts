// Apart from session.ts, so that headroom pgbench can redirect the notes without loading the session's code.

let writeLogLine = (message: string): void => void process.stderr.write(`${message}\n`);

/** headroom's own notes on stderr (loading, running, ...). */
export function logLine(message: string): void {
  writeLogLine(message);
}

/** headroom pgbench keeps stderr to pgbench's lines: headroom's notes go where it says. */
export function redirectLogLines(write: (message: string) => void): void {
  writeLogLine = write;
}
