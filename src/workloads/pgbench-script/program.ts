import { ScriptSyntaxError } from '../../errors.js';
import { compile, type Compiled } from './compile.js';
import { ExprSyntaxError, parseExpression } from './expr-parser.js';
import { Variables } from './frame.js';
import { lexScript, type RawCommand } from './script-lexer.js';
import { columnNames } from './columns.js';
import { parseSql, type SqlCommand } from './sql-command.js';
import { VARIABLE_NAME } from './variable-name.js';

/**
 * One step of a compiled script; control flow (\if and friends) is already turned into jumps.
 * `command` numbers the script's commands for -r (-1: a jump that is no command of its own).
 */
export type Step = { label: string; command: number } & (
  | { op: 'sql'; sql: SqlCommand; store: { prefix: string; all: boolean } | undefined }
  | { op: 'set'; slot: number; value: Compiled }
  | { op: 'sleep'; amount: Compiled; factorUs: number }
  /** Jump to `to` when the condition is false (\if, \elif), or always (the end of a branch). */
  | { op: 'jump'; when: Compiled | undefined; to: number }
  | { op: 'pipeline'; start: boolean }
  /** \shell (variable undefined) and \setshell: the words joined into a command for /bin/sh. */
  | { op: 'shell'; words: ShellWord[]; variable: number | undefined }
  /**
   * What pgbench reads without complaint but stops the client over when it gets there (a \set or
   * \gset into a name that is no variable's, \gset in a pipeline): the client aborts at this step.
   */
  | { op: 'fail'; message: string }
);

/** A word of a shell command: literal text, or a variable's value (`:name`; `::x` is the text `:x`). */
export type ShellWord = { text: string; slot?: undefined } | { text: string; slot: number };

export interface Program {
  name: string;
  steps: Step[];
  variables: Variables;
  /** The script's commands as pgbench's -r lists them, for per-statement figures. */
  commandLabels: string[];
  usesPipeline: boolean;
  /** Every SQL command only reads (SELECT without a locking clause), so a replica may run it whole. */
  readOnly: boolean;
}

const SLEEP_UNITS: Record<string, number> = { us: 1, ms: 1000, s: 1_000_000 };
const META_COMMANDS = 'meta-commands are \\set, \\setshell, \\shell, \\sleep, \\if, \\elif, \\else, \\endif, \\gset, \\aset, \\startpipeline, \\endpipeline';
// In its own file, so that headroom pgbench's -D checks it without loading the interpreter; also exported from here.
export { VARIABLE_NAME };

/** pgbench's wording: `syntax error in command "set"`, with what was expected after it. */
function inCommand(message: string, command: string): string {
  const syntax = /^syntax error(?:: (.*))?$/.exec(message);
  if (!syntax) return `${message} in command "${command}"`;
  return `syntax error in command "${command}"${syntax[1] ? ` (${syntax[1]})` : ''}`;
}

/** Offset of the n-th (0-based) whitespace-separated word of a meta-command's arguments. */
function wordOffset(args: string, n: number): number {
  const re = /\S+/g;
  let m: RegExpExecArray | null = null;
  for (let i = 0; i <= n; i++) m = re.exec(args);
  return m ? m.index : args.length;
}

/** Parses and compiles a script; a mistake is a UserError naming FILE:LINE:COLUMN and what was expected. */
export function compileScript(name: string, source: string, variables = new Variables()): Program {
  const steps: Step[] = [];
  const commandLabels: string[] = [];
  // Open \if blocks: the jump of the branch being built, and the end-of-branch jumps to patch at \endif.
  const blocks: { pending: number | undefined; exits: number[]; sawElse: boolean; at: RawCommand }[] = [];
  let pipelineOpen: RawCommand | undefined;
  let usesPipeline = false;
  const lines = source.split('\n');
  const fail = (at: { line: number; column: number }, message: string, hint?: string): never => {
    // pgbench's excerpt: the line, and a caret under the column.
    const excerpt = [lines[at.line - 1] ?? '', `${' '.repeat(Math.max(0, at.column - 1))}^ error found here`];
    throw new ScriptSyntaxError(`${name}:${at.line}:${at.column}: ${message}`, hint ?? "see pgbench's documentation of custom scripts", excerpt);
  };
  const expression = (raw: RawCommand, text: string, offset: number): Compiled => {
    if (text.trim() === '') fail(raw.positionOf(offset), `syntax error in command "${raw.name}"`);
    try {
      return compile(parseExpression(text), variables);
    } catch (error) {
      if (error instanceof ExprSyntaxError) return fail(raw.positionOf(offset + error.at), inCommand(error.message, raw.name));
      throw error;
    }
  };
  const label = (raw: RawCommand): string => (raw.kind === 'sql' ? raw.text.replace(/\s+/g, ' ') : `\\${raw.name}${raw.text.replace(/\s+/g, ' ').trimEnd()}`);
  const labelled = (raw: RawCommand): { label: string; command: number } => {
    commandLabels.push(raw.firstLine);
    return { label: label(raw), command: commandLabels.length - 1 };
  };

  const commands = lexScript(source);
  for (let index = 0; index < commands.length; index++) {
    const raw = commands[index]!;
    if (raw.kind === 'sql') {
      steps.push({ op: 'sql', sql: parseSql(raw.text, variables, raw.compound === true), store: undefined, ...labelled(raw) });
      continue;
    }
    const args = raw.text;
    const words = args.trim() === '' ? [] : args.trim().split(/\s+/);
    const argOffset = args.length - args.trimStart().length;
    switch (raw.name.toLowerCase()) {
      case 'set': {
        // The name is the first word, as pgbench reads it; a word that is no variable's name stops the client when it gets there.
        const m = /^(\s*)(\S+)/.exec(args);
        if (!m)
          fail(
            raw.positionOf(argOffset),
            args.trim() === '' ? 'missing argument in command "set"' : '\\set: expected a variable name',
            'write \\set NAME EXPRESSION',
          );
        const exprOffset = m![0].length;
        const name = m![2]!;
        const value = expression(raw, args.slice(exprOffset), exprOffset);
        if (!VARIABLE_NAME.test(name)) steps.push({ op: 'fail', message: `set: invalid variable name: "${name}"`, ...labelled(raw) });
        else steps.push({ op: 'set', slot: variables.slot(name), value, ...labelled(raw) });
        break;
      }
      case 'sleep': {
        let [amount, unit] = words;
        const hint = 'write \\sleep N [us|ms|s] or \\sleep :var [us|ms|s]';
        if (amount === undefined) fail(raw.positionOf(argOffset), 'missing argument in command "sleep"', hint);
        if (words.length > 2) fail(raw.positionOf(wordOffset(args, 2)), `too many arguments in command "sleep" ("${words[2]}")`, hint);
        // As pgbench: a lone number may carry its unit ("\sleep 2ms").
        const attached = words.length === 1 ? /^([+-]?\d+)([^\d].*)$/.exec(amount!) : null;
        if (attached) [, amount, unit] = attached;
        if (!/^([+-]?\d+|:[A-Za-z0-9_\u0080-\uffff]+)$/.test(amount!))
          fail(raw.positionOf(argOffset), `\\sleep: expected an integer or a :variable, not "${amount}"`, hint);
        if (unit !== undefined && !(unit.toLowerCase() in SLEEP_UNITS)) {
          fail(
            raw.positionOf(attached ? argOffset + amount!.length : wordOffset(args, 1)),
            `unrecognized time unit, must be us, ms or s ("${unit}") in command "sleep"`,
            'use us, ms or s',
          );
        }
        const plus = amount!.startsWith('+') ? 1 : 0;
        const factorUs = SLEEP_UNITS[(unit ?? 's').toLowerCase()]!;
        steps.push({ op: 'sleep', amount: expression(raw, amount!.slice(plus), argOffset + plus), factorUs, ...labelled(raw) });
        break;
      }
      case 'gset':
      case 'aset': {
        const previous = steps[steps.length - 1];
        const prevRaw = commands[index - 1];
        if (!previous || previous.op !== 'sql' || previous.store || !prevRaw?.endedByMeta) {
          fail(
            raw,
            `\\${raw.name} must follow an SQL command, in place of its semicolon`,
            `write e.g. SELECT abalance FROM pgbench_accounts WHERE aid = :aid \\${raw.name}`,
          );
        }
        if (words.length > 1) fail(raw.positionOf(args.indexOf(words[1]!)), `too many arguments in command "${raw.name}"`);
        const store = { prefix: words[0] ?? '', all: raw.name.toLowerCase() === 'aset' };
        const sqlStep = previous as Extract<Step, { op: 'sql' }>;
        if (pipelineOpen) {
          // pgbench 15 stops the client before it sends the command.
          steps.splice(steps.length - 1, 0, {
            op: 'fail',
            message: `\\${raw.name} is not allowed in pipeline mode`,
            label: sqlStep.label,
            command: sqlStep.command,
          });
          break;
        }
        // pgbench stores each column into the variable prefix + column name, and stops the client
        // when that is no variable's name: after the query, when it stores. A compound command's
        // columns are named by the server when it answers, and checked then.
        const column = sqlStep.sql.compound
          ? undefined
          : columnNames(sqlStep.sql.parameterized).find((c) => c !== undefined && !VARIABLE_NAME.test(store.prefix + c));
        if (column !== undefined) {
          const variable = store.prefix + column;
          const message = `command ${sqlStep.command} query 0: error storing into variable ${variable} (${raw.name}: invalid variable name: "${variable}")`;
          steps.push({ op: 'fail', message, label: sqlStep.label, command: sqlStep.command });
          break;
        }
        (previous as Extract<Step, { op: 'sql' }>).store = store;
        break;
      }
      case 'if':
        blocks.push({ pending: steps.length, exits: [], sawElse: false, at: raw });
        steps.push({ op: 'jump', when: expression(raw, args, 0), to: -1, ...labelled(raw) });
        break;
      case 'elif':
      case 'else': {
        const block = blocks[blocks.length - 1];
        if (!block) fail(raw, `\\${raw.name} without matching \\if`);
        if (block!.sawElse) fail(raw, `\\${raw.name} after \\else`);
        block!.exits.push(steps.length);
        // \else is one of pgbench's commands (-r lists it, errors count it); the jump at the end of the branch before \elif belongs to the \elif.
        const isElse = raw.name.toLowerCase() === 'else';
        steps.push({ op: 'jump', when: undefined, to: -1, ...(isElse ? labelled(raw) : { label: `\\${raw.name}`, command: -1 }) });
        patch(steps, block!.pending, steps.length);
        if (raw.name.toLowerCase() === 'elif') {
          block!.pending = steps.length;
          steps.push({ op: 'jump', when: expression(raw, args, 0), to: -1, ...labelled(raw) });
        } else {
          if (words.length > 0) fail(raw.positionOf(argOffset), 'unexpected argument in command "else"', '\\else takes no argument');
          block!.pending = undefined;
          block!.sawElse = true;
        }
        break;
      }
      case 'endif': {
        if (words.length > 0) fail(raw.positionOf(argOffset), 'unexpected argument in command "endif"', '\\endif takes no argument');
        const block = blocks.pop();
        if (!block) fail(raw, '\\endif without matching \\if');
        patch(steps, block!.pending, steps.length);
        for (const exit of block!.exits) patch(steps, exit, steps.length);
        // Every branch ends here: a step that only goes on, so that \endif is a command of its own, as in pgbench.
        steps.push({ op: 'jump', when: undefined, to: steps.length + 1, ...labelled(raw) });
        break;
      }
      case 'startpipeline':
        if (words.length > 0) fail(raw.positionOf(argOffset), 'unexpected argument in command "startpipeline"', '\\startpipeline takes no argument');
        if (pipelineOpen) fail(raw, '\\startpipeline inside a pipeline', 'end the first with \\endpipeline');
        pipelineOpen = raw;
        usesPipeline = true;
        steps.push({ op: 'pipeline', start: true, ...labelled(raw) });
        break;
      case 'endpipeline':
        if (words.length > 0) fail(raw.positionOf(argOffset), 'unexpected argument in command "endpipeline"', '\\endpipeline takes no argument');
        if (!pipelineOpen) fail(raw, '\\endpipeline without a matching \\startpipeline');
        pipelineOpen = undefined;
        steps.push({ op: 'pipeline', start: false, ...labelled(raw) });
        break;
      case 'shell':
      case 'setshell': {
        const setshell = raw.name.toLowerCase() === 'setshell';
        // pgbench's limits: the command needs a word (\setshell a variable and a word), and at most 255 in all.
        if (words.length < (setshell ? 2 : 1)) {
          const hint = `write \\${raw.name} ${setshell ? 'VARIABLE ' : ''}COMMAND [ARGUMENT...]`;
          fail(raw, `${setshell ? 'missing argument' : 'missing command'} in command "${raw.name}"`, hint);
        }
        if (words.length > 255) fail(raw.positionOf(wordOffset(args, 255)), `too many arguments in command "${raw.name}"`);
        const shellWords = words
          .slice(setshell ? 1 : 0)
          .map((word): ShellWord =>
            !word.startsWith(':') ? { text: word } : word.startsWith('::') ? { text: word.slice(1) } : { text: word, slot: variables.slot(word.slice(1)) },
          );
        // As \set: a word that is no variable's name stops the client when it gets there.
        if (setshell && !VARIABLE_NAME.test(words[0]!)) steps.push({ op: 'fail', message: `setshell: invalid variable name: "${words[0]}"`, ...labelled(raw) });
        else steps.push({ op: 'shell', words: shellWords, variable: setshell ? variables.slot(words[0]!) : undefined, ...labelled(raw) });
        break;
      }
      default:
        fail(raw, `invalid command in command "${raw.name}"`, META_COMMANDS);
    }
  }
  const open = blocks.pop();
  if (open) fail(open.at, '\\if without matching \\endif');
  if (pipelineOpen) fail(pipelineOpen, '\\startpipeline without a matching \\endpipeline');
  if (steps.length === 0) fail({ line: 1, column: 1 }, `empty command list for script "${name}"`);
  const readOnly = steps.every(
    (s) =>
      s.op !== 'sql' ||
      s.sql.control !== undefined ||
      (/^\s*select\b/i.test(s.sql.parameterized) && !/\bfor\s+(update|share|no\s+key|key)\b/i.test(s.sql.parameterized)),
  );
  return { name, steps, variables, commandLabels, usesPipeline, readOnly };
}

function patch(steps: Step[], index: number | undefined, to: number): void {
  if (index === undefined) return;
  const step = steps[index]!;
  if (step.op === 'jump') step.to = to;
}
