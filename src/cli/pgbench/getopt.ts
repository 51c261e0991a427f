/**
 * getopt_long as glibc's (which pgbench uses on Linux) reads a command line: bundled short options
 * (`-nS`), a value attached or next (`-c4`, `-c 4`, `--client=4`, `--client 4`), long options
 * shortened to any unambiguous prefix (`--cli=4`), options before and after the operands (the
 * dbname), and `--` ending the options. Its refusals are glibc's wording.
 */
export interface LongOption {
  name: string;
  hasArg: boolean;
  /** What the option is known by once parsed: its short letter, or its long name. */
  key: string;
}

export interface ParsedOption {
  key: string;
  value: string | undefined;
}

export class GetoptError extends Error {}

export interface GetoptResult {
  options: ParsedOption[];
  operands: string[];
}

/** shortSpec as getopt's optstring: a letter, followed by ':' when it takes a value. */
export function getoptLong(argv: readonly string[], shortSpec: string, longOptions: readonly LongOption[]): GetoptResult {
  const takesValue = new Map<string, boolean>();
  for (let i = 0; i < shortSpec.length; i++) {
    const letter = shortSpec[i]!;
    if (letter === ':') continue;
    takesValue.set(letter, shortSpec[i + 1] === ':');
  }
  const options: ParsedOption[] = [];
  const operands: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      const option = findLong(name, longOptions);
      const shown = `--${option.name}`;
      if (!option.hasArg) {
        if (eq >= 0) throw new GetoptError(`option '${shown}' doesn't allow an argument`);
        options.push({ key: option.key, value: undefined });
        continue;
      }
      let value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new GetoptError(`option '${shown}' requires an argument`);
      options.push({ key: option.key, value });
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j]!;
        const hasValue = takesValue.get(letter);
        if (hasValue === undefined) throw new GetoptError(`invalid option -- '${letter}'`);
        if (!hasValue) {
          options.push({ key: letter, value: undefined });
          continue;
        }
        const value = j + 1 < arg.length ? arg.slice(j + 1) : argv[++i];
        if (value === undefined) throw new GetoptError(`option requires an argument -- '${letter}'`);
        options.push({ key: letter, value });
        break;
      }
      continue;
    }
    operands.push(arg);
  }
  return { options, operands };
}

/** An exact name, else the one option the prefix begins. */
function findLong(name: string, longOptions: readonly LongOption[]): LongOption {
  const exact = longOptions.find((o) => o.name === name);
  if (exact) return exact;
  const matches = name === '' ? [] : longOptions.filter((o) => o.name.startsWith(name));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new GetoptError(`option '--${name}' is ambiguous; possibilities: ${matches.map((o) => `'--${o.name}'`).join(' ')}`);
  throw new GetoptError(`unrecognized option '--${name}'`);
}
