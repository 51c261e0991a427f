/**
 * An option as the command line, `headroom list` and `--help` see it. Options carry their own
 * help text and default (as sysbench's do), so there is one place to read them from.
 */
export interface OptionSpec {
  long: string;
  short?: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'strings';
  help: string;
  default?: string | number | boolean | readonly string[];
  /** Shown in help in place of the value, e.g. SECONDS. */
  value?: string;
  /** Smallest accepted value for integer and number options. */
  min?: number;
  /**
   * Largest accepted value for integer and number options; an integer option without one stops at
   * Number.MAX_SAFE_INTEGER, the last whole number a double holds exactly.
   */
  max?: number;
  /** Why max is the limit, told with the refusal (e.g. "24 days: the longest a timer holds"). */
  maxWhy?: string;
  choices?: readonly string[];
  /**
   * A workload option's verbs: the ones whose work reads it (run also stands for its sweeps). The
   * others refuse it, so that an option that would change nothing is never taken silently.
   * Not given: every verb that takes the workload.
   */
  verbs?: readonly WorkloadVerb[];
}

/** The verbs that take a workload and its options. */
export type WorkloadVerb = 'run' | 'init' | 'check' | 'drop';

export type OptionValues = Record<string, string | number | boolean | string[] | undefined>;

/** The value each option type parses to. */
interface ValueOfType {
  integer: number;
  number: number;
  string: string;
  boolean: boolean;
  strings: string[];
}

/** A string option with literal choices parses to one of them; any other to its type's value. */
type ValueOf<Spec extends OptionSpec> = Spec extends { type: 'string'; choices: readonly (infer Choice extends string)[] } ? Choice : ValueOfType[Spec['type']];

/** Only an option with a default is always there; a boolean one without is there only when given. */
type Defaulted<Spec extends OptionSpec> = Spec extends { default: infer Given } ? ([Given] extends [undefined] ? false : true) : false;

/**
 * The parsed values of a list of options, by long name: reading an option the list does not
 * have, or misspelling one, is a compile error rather than an undefined at run time. Needs the
 * specs' literal types: declare them with defineOptions (or defineOption for a single one).
 */
export type OptionValuesOf<Specs extends readonly OptionSpec[]> = {
  [Spec in Specs[number] as Spec['long']]: ValueOf<Spec> | (Defaulted<Spec> extends true ? never : undefined);
};

/** An option list with the literal type of each option kept, for OptionValuesOf. */
export function defineOptions<const Specs extends readonly OptionSpec[]>(specs: Specs): Specs {
  return specs;
}

/** One option with its literal type kept, to be shared by several lists. */
export function defineOption<const Spec extends OptionSpec>(spec: Spec): Spec {
  return spec;
}

export function formatOptionHelp(specs: readonly OptionSpec[]): string {
  const rows = specs.map((spec) => {
    const flag = `${spec.short ? `-${spec.short}, ` : '    '}--${spec.long}${spec.type === 'boolean' ? '' : ` ${spec.value ?? spec.type.toUpperCase()}`}`;
    const extras: string[] = [];
    if (spec.choices) extras.push(`one of ${spec.choices.join(', ')}`);
    if (spec.default !== undefined && spec.default !== false) extras.push(`default ${formatDefault(spec.default)}`);
    return [flag, spec.help + (extras.length > 0 ? ` (${extras.join('; ')})` : '')] as const;
  });
  const width = Math.min(34, Math.max(...rows.map(([flag]) => flag.length)) + 2);
  return rows.map(([flag, help]) => `  ${flag.padEnd(width)}${flag.length >= width ? `\n  ${' '.repeat(width)}` : ''}${help}`).join('\n');
}

function formatDefault(value: NonNullable<OptionSpec['default']>): string {
  return Array.isArray(value) ? value.join(' ') : String(value);
}
