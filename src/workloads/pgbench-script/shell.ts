import { spawn } from 'node:child_process';
import type { Frame } from './frame.js';
import type { ShellWord } from './program.js';
import { ScriptError, valueText } from './value.js';

/**
 * A failed \shell or \setshell, in pgbench's words: the abort names the meta-command, and the
 * reason starts with the command's first word ("echo: undefined variable ...").
 */
export class ShellError extends ScriptError {
  constructor(
    readonly meta: 'shell' | 'setshell',
    message: string,
  ) {
    super(message);
  }
}

/** pgbench reads one line of at most 63 characters of a \setshell command's output (fgets into 64 bytes). */
const RESULT_BYTES = 63;

/** The command line as pgbench joins it: words separated by one space, `:name` replaced by the variable's value. */
function commandLine(meta: 'shell' | 'setshell', words: readonly ShellWord[], frame: Frame): string {
  let line = '';
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    let text = word.text;
    if (word.slot !== undefined) {
      const value = frame.vars[word.slot];
      if (value === undefined) throw new ShellError(meta, `${words[0]!.text}: undefined variable "${word.text}"`);
      text = valueText(value);
    }
    line += i > 0 ? ` ${text}` : text;
  }
  return line;
}

/** \shell: runs the command through /bin/sh with the terminal's own input and output, as system() does; fails unless it exits 0. */
export function runShell(words: readonly ShellWord[], frame: Frame): Promise<void> {
  const line = commandLine('shell', words, frame);
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', line], { stdio: 'inherit' });
    child.once('error', () => reject(new ShellError('shell', `${words[0]!.text}: could not launch shell command`)));
    child.once('close', (code) => (code === 0 ? resolve() : reject(new ShellError('shell', `${words[0]!.text}: could not launch shell command`))));
  });
}

/** \setshell: the first line of the command's output, which must be an integer (C's strtol, trailing white space allowed). */
export function runSetShell(words: readonly ShellWord[], frame: Frame): Promise<number> {
  const line = commandLine('setshell', words, frame);
  const name = words[0]!.text;
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', line], { stdio: ['inherit', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', () => reject(new ShellError('setshell', `${name}: could not launch shell command`)));
    child.once('close', () => {
      const output = Buffer.concat(chunks).toString('utf8');
      if (output === '') return reject(new ShellError('setshell', `${name}: could not read result of shell command`));
      const newline = output.indexOf('\n');
      const first = (newline < 0 ? output : output.slice(0, newline + 1)).slice(0, RESULT_BYTES);
      const m = /^\s*([+-]?\d+)\s*$/.exec(first);
      if (!m) return reject(new ShellError('setshell', `${name}: shell command must return an integer (not "${first}")`));
      // C's (int) strtol: the low 32 bits of the number.
      resolve(Number(BigInt.asIntN(32, BigInt(m[1]!))));
    });
  });
}
