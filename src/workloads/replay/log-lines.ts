import { closeSync, openSync, readSync } from 'node:fs';

/** One line of a log file, with the number people see in an editor (from 1). */
export interface LogLine {
  text: string;
  number: number;
  /** False for a last line with no newline after it: the writer may have been cut off in it. */
  ended: boolean;
}

const CHUNK = 1 << 20;

/**
 * The lines of a file, read a megabyte at a time so that a log of any size is captured without
 * holding it whole (a server's log easily outgrows the longest string V8 allows). A final line with
 * no newline is still a line; `\r\n` endings lose their `\r`.
 */
export function* logLines(file: string): Generator<LogLine> {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK);
    let rest = '';
    let number = 0;
    const decoder = new TextDecoder('utf-8');
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, null);
      const text = rest + (read > 0 ? decoder.decode(buffer.subarray(0, read), { stream: true }) : decoder.decode());
      const lines = text.split('\n');
      rest = read > 0 ? lines.pop()! : '';
      const last = read > 0 ? -1 : lines.length - 1;
      for (const [i, line] of lines.entries()) {
        if (i === last && line === '') break;
        number++;
        yield { text: line.endsWith('\r') ? line.slice(0, -1) : line, number, ended: i !== last };
      }
      if (read === 0) return;
    }
  } finally {
    closeSync(fd);
  }
}
