/** libpq shows at most this many screen columns of the line an error's position falls on. */
const SHOWN_COLUMNS = 60;
/** When it must cut a long line, libpq keeps at least this many columns right of the position. */
const KEPT_RIGHT = 10;

/**
 * The two lines libpq adds under an error that carries a position (psql and pgbench print them):
 * `LINE n: ` and the line of `query` that the position (1-based, in characters) falls on, then a
 * caret under that character. As libpq does: tabs show as one space, \r, \n and \r\n each end a
 * line, a line wider than 60 columns is cut to 60 around the position with "..." where it was cut,
 * and East Asian wide characters take two columns. None when the position lies beyond the text.
 */
export function errorPositionLines(query: string, position: number): string[] {
  const at = position - 1;
  if (!Number.isInteger(at) || at < 0) return [];
  const chars = Array.from(query);
  // columns[i]: the screen column character i starts at, counted from the text's start.
  const columns: number[] = [];
  let line = 1;
  let begin = 0;
  let end = -1;
  let column = 0;
  for (let i = 0; i < chars.length; i++) {
    columns[i] = column;
    const ch = chars[i]!;
    if (ch === '\t') chars[i] = ' ';
    else if (ch === '\r' || ch === '\n') {
      if (i >= at) {
        end = i;
        break;
      }
      // \r\n is one line end, counted at its \r.
      if (ch === '\r' || i === 0 || chars[i - 1] !== '\r') line++;
      begin = i + 1;
    }
    column += screenWidth(chars[i]!.codePointAt(0)!);
  }
  if (end < 0) {
    end = chars.length;
    columns[end] = column;
  }
  if (at > end) return [];
  let cutLeft = false;
  let cutRight = false;
  if (columns[end]! - columns[begin]! > SHOWN_COLUMNS) {
    if (columns[begin]! + SHOWN_COLUMNS >= columns[at]! + KEPT_RIGHT) {
      // Cutting the right end alone leaves the position far enough from the edge.
      while (columns[end]! - columns[begin]! > SHOWN_COLUMNS) end--;
      cutRight = true;
    } else {
      while (columns[at]! + KEPT_RIGHT < columns[end]!) {
        end--;
        cutRight = true;
      }
      while (columns[end]! - columns[begin]! > SHOWN_COLUMNS) {
        begin++;
        cutLeft = true;
      }
    }
  }
  const prefix = `LINE ${line}: ${cutLeft ? '...' : ''}`;
  const text = `${prefix}${chars.slice(begin, end).join('')}${cutRight ? '...' : ''}`;
  return [text, `${' '.repeat(prefix.length + columns[at]! - columns[begin]!)}^`];
}

/**
 * Columns a character takes on a terminal: two for East Asian wide and full-width characters
 * (the main blocks of Unicode's East Asian Width W and F), else one (libpq counts control and
 * combining characters as one too).
 */
function screenWidth(code: number): number {
  const wide =
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd);
  return wide ? 2 : 1;
}
