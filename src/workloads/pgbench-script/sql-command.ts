import { literalText, type LiteralValue } from '../../drivers/literals.js';
import type { Variables } from './frame.js';

/** How an SQL command of a script is sent; the transaction-control words map onto the driver's own calls. */
export type SqlControl = 'begin' | 'commit' | 'rollback' | undefined;

export interface SqlCommand {
  /** The text with each :variable replaced by `?` (prepared and extended protocols). */
  parameterized: string;
  /** The text split around its variables, for the simple protocol's literal interpolation. */
  pieces: string[];
  /** Slot of each variable, in order of appearance. */
  slots: number[];
  names: string[];
  control: SqlControl;
  /** Several queries joined by \\;, sent together in one request; the server names the columns \gset and \aset store. */
  compound: boolean;
}

/**
 * Finds the :variables of an SQL command, skipping `::` casts, quoted strings and identifiers,
 * dollar-quoted strings and comments (a :name inside quotes is text, not a variable).
 */
export function parseSql(text: string, variables: Variables, compound = false): SqlCommand {
  const pieces: string[] = [];
  const slots: number[] = [];
  const names: string[] = [];
  let piece = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    let skipTo = -1;
    if (c === "'" || c === '"') skipTo = closeOf(text, c, i + 1);
    else if (c === '-' && text[i + 1] === '-') skipTo = lineEnd(text, i);
    else if (c === '/' && text[i + 1] === '*') skipTo = blockEnd(text, i);
    else if (c === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(text.slice(i));
      if (tag) {
        const close = text.indexOf(tag[0], i + tag[0].length);
        skipTo = close < 0 ? text.length : close + tag[0].length;
      }
    }
    if (skipTo >= 0) {
      piece += text.slice(i, skipTo);
      i = skipTo - 1;
      continue;
    }
    if (c === ':' && text[i + 1] === ':') {
      piece += '::';
      i++;
      continue;
    }
    // pgbench's parseVariable: a letter, an underscore or a non-ASCII character, then digits too; ":1" stays text.
    const name = c === ':' ? /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*/.exec(text.slice(i + 1))?.[0] : undefined;
    if (name !== undefined) {
      pieces.push(piece);
      piece = '';
      slots.push(variables.slot(name));
      names.push(name);
      i += name.length;
      continue;
    }
    piece += c;
  }
  pieces.push(piece);
  return { parameterized: pieces.join('?'), pieces, slots, names, control: compound ? undefined : controlOf(text), compound };
}

function closeOf(text: string, quote: string, from: number): number {
  const close = text.indexOf(quote, from);
  return close < 0 ? text.length : close + 1;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

function blockEnd(text: string, from: number): number {
  const end = text.indexOf('*/', from + 2);
  return end < 0 ? text.length : end + 2;
}

/**
 * BEGIN / END as pgbench scripts write them become the driver's begin() and commit(): the same
 * script then runs on every DBMS (MariaDB has no END) and the engine knows the transaction's bounds.
 */
function controlOf(text: string): SqlControl {
  const words = text.trim().toLowerCase().split(/\s+/);
  const [first, second] = words;
  if (words.length === 2 && first === 'start' && second === 'transaction') return 'begin';
  if (words.length > 2 || (second !== undefined && second !== 'work' && second !== 'transaction')) return undefined;
  if (first === 'begin') return 'begin';
  if (first === 'end' || first === 'commit') return 'commit';
  if (first === 'rollback' || first === 'abort') return 'rollback';
  return undefined;
}

/** The simple protocol's text: each value written in place as an SQL literal (drivers/literals.ts). */
export function simpleQueryText(command: SqlCommand, values: readonly LiteralValue[]): string {
  return literalText(command.pieces, values);
}
