import { UserError } from '../errors.js';
import type { OptionSpec, OptionValues, OptionValuesOf } from './options.js';

export interface ParsedArgs<Specs extends readonly OptionSpec[] = readonly OptionSpec[]> {
  /** The values of the options the caller declared, typed by their specs. */
  values: OptionValuesOf<Specs>;
  /** Every value, the extra (workload) options' too, untyped: for code that reads options by a name it is given. */
  all: OptionValues;
  positionals: string[];
  /** Long names of the options the user actually gave (defaults excluded). */
  given: Set<string>;
}

/**
 * A small getopt: `--name value`, `--name=value`, `-c 8`, `-c8`, boolean flags, repeatable
 * `strings` options, and `--` to end options. Errors name the option and the way to get help.
 * `extra` are options parsed as well but read by name (the workloads' own): only `all` has them typed, loosely.
 */
export function parseArgs<const Specs extends readonly OptionSpec[]>(
  argv: readonly string[],
  declared: Specs,
  verb: string,
  extra: readonly OptionSpec[] = [],
): ParsedArgs<Specs> {
  const specs: readonly OptionSpec[] = [...declared, ...extra];
  const byLong = new Map(specs.map((s) => [s.long, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]));
  const values: OptionValues = {};
  const given = new Set<string>();
  const positionals: string[] = [];
  const help = `see: headroom ${verb} --help`;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let spec: OptionSpec | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
      spec = byLong.get(name);
      if (!spec) throw new UserError(`unknown option --${name} for "headroom ${verb}"`, help);
    } else if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) {
      spec = byShort.get(arg[1]!);
      if (!spec) throw new UserError(`unknown option -${arg[1]} for "headroom ${verb}"`, help);
      inline = arg.length > 2 ? arg.slice(2) : undefined;
    } else {
      positionals.push(arg);
      continue;
    }
    const label = `--${spec.long}`;
    if (spec.type === 'boolean') {
      if (inline !== undefined && !['true', 'false'].includes(inline)) throw new UserError(`${label} takes no value`, help);
      values[spec.long] = inline !== 'false';
    } else {
      const text = inline ?? argv[++i];
      if (text === undefined) throw new UserError(`${label} needs a value${spec.value ? ` (${spec.value})` : ''}`, help);
      setValue(values, spec, text, label, help);
    }
    given.add(spec.long);
  }
  for (const spec of specs) {
    if (values[spec.long] === undefined && spec.default !== undefined) {
      values[spec.long] = Array.isArray(spec.default) ? [...spec.default] : (spec.default as string | number | boolean);
    }
  }
  // One object: the declared options' values are checked against their specs just above.
  return { values: values as OptionValuesOf<Specs>, all: values, positionals, given };
}

function setValue(values: OptionValues, spec: OptionSpec, text: string, label: string, help: string): void {
  if (spec.choices && !spec.choices.includes(text)) {
    throw new UserError(`${label} must be one of ${spec.choices.join(', ')}, not "${text}"`, help);
  }
  switch (spec.type) {
    case 'integer':
    case 'number': {
      const value = Number(text);
      const whole = spec.type === 'integer';
      if (text.trim() === '' || !Number.isFinite(value) || (whole && !Number.isInteger(value))) {
        throw new UserError(`${label} needs ${whole ? 'a whole number' : 'a number'}, not "${text}"`, help);
      }
      if (spec.min !== undefined && value < spec.min) throw new UserError(`${label} must be at least ${spec.min}, not ${text}`, help);
      // A whole number past 2^53 is rounded as it is read (9007199254740993 reads as ...992): refused, not changed.
      const max = spec.max ?? (whole ? Number.MAX_SAFE_INTEGER : undefined);
      const why = spec.maxWhy ?? (spec.max === undefined ? 'the largest whole number read exactly' : undefined);
      if (max !== undefined && value > max) throw new UserError(`${label} must be at most ${max}${why ? ` (${why})` : ''}, not ${text}`, help);
      values[spec.long] = value;
      return;
    }
    case 'strings': {
      const list = (values[spec.long] as string[] | undefined) ?? [];
      list.push(text);
      values[spec.long] = list;
      return;
    }
    default:
      values[spec.long] = text;
  }
}
