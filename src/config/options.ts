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
