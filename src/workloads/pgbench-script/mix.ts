import { readFileSync } from 'node:fs';
import { UserError } from '../../errors.js';
import type { OptionValues } from '../../config/options.js';
import type { TransactionType } from '../workload.js';
import { BUILTIN_SCRIPTS } from './builtin-scripts.js';
import { compileScript, VARIABLE_NAME } from './program.js';
import { scriptTransaction } from './script-transaction.js';

export const BUILTIN_NAMES = Object.keys(BUILTIN_SCRIPTS);

/**
 * The transaction mix of -b NAME[@W] and -f FILE[@W] (in --script-order, else built-ins first,
 * then files, each in the order given), with -D NAME=VALUE defining variables for all of them.
 * Every script is parsed and compiled here, so a broken one is refused before anything runs. No
 * -b and no -f: tpcb-like.
 */
export function scriptMix(options: OptionValues): TransactionType[] {
  const defines = parseDefines((options['define'] as string[] | undefined) ?? []);
  const debug = options['debug'] === true;
  const mix: TransactionType[] = [];
  for (const script of orderedScripts(options)) {
    if (script.kind === 'builtin') {
      const [name, weight] = splitWeight(script.text);
      const source = BUILTIN_SCRIPTS[name];
      if (source === undefined) throw new UserError(`unknown built-in script "${name}"`, `use one of ${BUILTIN_NAMES.join(', ')}, optionally with @weight`);
      mix.push(scriptTransaction(compileScript(name, source), weight, defines, mix.length, debug));
    } else {
      const [file, weight] = splitWeight(script.text);
      mix.push(scriptTransaction(compileScript(file, readScript(script.text)), weight, defines, mix.length, debug));
    }
  }
  return mix;
}

/**
 * -b's and -f's scripts in the mix's order: --script-order's letters (b, f) take the next of
 * each list; without it, built-ins first. No -b and no -f: tpcb-like.
 */
export function orderedScripts(options: OptionValues): { kind: 'builtin' | 'file'; text: string }[] {
  const builtins = (options['builtin'] as string[] | undefined) ?? [];
  const files = (options['file'] as string[] | undefined) ?? [];
  if (builtins.length + files.length === 0) return [{ kind: 'builtin', text: 'tpcb-like' }];
  const order = (options['script-order'] as string | undefined) ?? 'b'.repeat(builtins.length) + 'f'.repeat(files.length);
  const count = (letter: string): number => [...order].filter((c) => c === letter).length;
  if (!/^[bf]*$/.test(order) || count('b') !== builtins.length || count('f') !== files.length) {
    throw new UserError(
      `--script-order ${order} does not fit ${builtins.length} -b and ${files.length} -f scripts`,
      'give one letter per script, b for each -b and f for each -f, in the order they are to be numbered',
    );
  }
  let b = 0;
  let f = 0;
  return [...order].map((letter) => (letter === 'b' ? { kind: 'builtin', text: builtins[b++]! } : { kind: 'file', text: files[f++]! }));
}

/** The text of the script file a -f FILE[@WEIGHT] names. */
export function readScript(fileAndWeight: string): string {
  const [file] = splitWeight(fileAndWeight);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UserError(
      `cannot read script file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      'give -f the path of a pgbench script file',
    );
  }
  const source = utf8Text(bytes, file);
  // PostgreSQL ends query text with a NUL byte, and pgbench reads a script as a C string: a NUL inside is refused here.
  const nul = source.indexOf('\0');
  if (nul >= 0) {
    const before = source.slice(0, nul);
    const line = before.split('\n').length;
    const column = nul - before.lastIndexOf('\n');
    throw new UserError(
      `${file}:${line}:${column}: the script holds a NUL byte`,
      "remove it: PostgreSQL's protocol cannot carry one and pgbench stops reading a script at it (a file full of them is UTF-16 or binary, not UTF-8 text)",
    );
  }
  return source;
}

/**
 * The script's text, refused at its first byte that is not UTF-8: every driver sends text as
 * UTF-8, so such a byte would reach the server as U+FFFD, a character the script never held,
 * and run as if nothing were wrong (pgbench sends the byte, and a UTF-8 server refuses it).
 */
function utf8Text(bytes: Buffer, file: string): string {
  const text = bytes.toString('utf8');
  // Decoding puts U+FFFD for each bad sequence; a file of good ones only encodes back to itself.
  if (!text.includes('\uFFFD') || Buffer.from(text, 'utf8').equals(bytes)) return text;
  let offset = 0;
  let line = 1;
  let column = 1;
  for (const char of text) {
    // The first U+FFFD the file does not hold itself (as EF BF BD) is where its bytes stop being UTF-8.
    if (char === '\uFFFD' && !(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) {
      throw new UserError(
        `${file}:${line}:${column}: the script is not UTF-8 (byte 0x${bytes[offset]!.toString(16).padStart(2, '0')})`,
        'save it as UTF-8, e.g. with iconv -f LATIN1 -t UTF-8 for a Latin-1 file: headroom sends scripts to every DBMS as UTF-8',
      );
    }
    offset += Buffer.byteLength(char);
    if (char === '\n') {
      line++;
      column = 1;
    } else column++;
  }
  return text;
}

/** Whether a script names one of pgbench's own tables. */
export const PGBENCH_TABLE = /\bpgbench_(accounts|branches|tellers|history)\b/i;

/** NAME@WEIGHT as pgbench takes it: the weight is a whole number after the last @. */
export function splitWeight(text: string): [string, number] {
  const match = /^(.*)@(\d+)$/.exec(text);
  if (!match) return [text, 1];
  return [match[1]!, Number(match[2])];
}

function parseDefines(texts: readonly string[]): Map<string, string> {
  const defines = new Map<string, string>();
  for (const text of texts) {
    const match = /^([^=]+)=(.*)$/s.exec(text);
    if (!match || !VARIABLE_NAME.test(match[1]!)) {
      throw new UserError(
        `-D ${text}: expected NAME=VALUE`,
        'a variable name is letters, digits, underscores and non-ASCII characters, not starting with a digit, e.g. -D delta=5',
      );
    }
    defines.set(match[1]!, match[2]!);
  }
  return defines;
}
