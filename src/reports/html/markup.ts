/** Text into HTML: results carry server versions, messages and settings that may hold < or &. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A table; cells are already HTML. Columns after the first are numbers unless said otherwise. */
export function htmlTable(header: readonly string[], rows: readonly (readonly string[])[], options: { textColumns?: number } = {}): string {
  const text = options.textColumns ?? 1;
  const cls = (i: number): string => (i < text ? '' : ' class="num"');
  // A wide table scrolls inside its box on a narrow screen instead of widening the page.
  return [
    '<div class="scroll"><table>',
    `<thead><tr>${header.map((h, i) => `<th${cls(i)}>${escapeHtml(h)}</th>`).join('')}</tr></thead>`,
    `<tbody>${rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${c}</td>`).join('')}</tr>`).join('')}</tbody>`,
    '</table></div>',
  ].join('');
}

/** Name/value pairs as a definition list. */
export function facts(pairs: readonly (readonly [string, string])[]): string {
  return `<dl class="facts">${pairs.map(([k, v]) => `<div><dt>${escapeHtml(k)}</dt><dd>${v}</dd></div>`).join('')}</dl>`;
}

/**
 * JSON inside a script element: "</script" or "<!--" in a string (a server message, say) must not
 * end the element early.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
