import type { OptionSpec, OptionValues, OptionValuesOf, WorkloadVerb } from '../config/options.js';
import { parseArgs } from '../config/args.js';
import { UserError } from '../errors.js';
import { DEFAULT_WORKLOAD, loadWorkload } from '../workloads/registry.js';
import type { Workload } from '../workloads/workload.js';
import { workloadOptionSpecs } from '../session/options.js';

export interface VerbArgs<Specs extends readonly OptionSpec[]> {
  workload: Workload;
  /** The verb's own options, typed; the workload's are in workloadOptions. */
  values: OptionValuesOf<Specs>;
  given: Set<string>;
  /** Only this workload's options, with their defaults. */
  workloadOptions: OptionValues;
}

/** Parses a verb's arguments: `headroom VERB [WORKLOAD] [options]`. */
export async function parseVerbArgs<const Specs extends readonly OptionSpec[]>(
  argv: readonly string[],
  verb: WorkloadVerb,
  specs: Specs,
): Promise<VerbArgs<Specs>> {
  const { values, all, positionals, given } = parseArgs(argv, specs, verb, workloadOptionSpecs());
  if (positionals.length > 1) throw new UserError(`"headroom ${verb}" takes one workload, got: ${positionals.join(' ')}`, `see: headroom ${verb} --help`);
  // Only the workload named is loaded: the parse above needed no more than every workload's options.
  const workload = await loadWorkload(positionals[0] ?? DEFAULT_WORKLOAD);
  const own = new Set(workload.options.map((o) => o.long));
  const foreign = [...given].find((name) => !specs.some((s) => s.long === name) && !own.has(name));
  if (foreign) throw new UserError(`--${foreign} is not an option of workload ${workload.name}`, `see: headroom list`);
  const unused = workload.options.find((spec) => given.has(spec.long) && spec.verbs !== undefined && !spec.verbs.includes(verb));
  if (unused) throw new UserError(`--${unused.long} does nothing in headroom ${verb} ${workload.name}`, `it applies to headroom ${unused.verbs!.join(', ')}`);
  const workloadOptions: OptionValues = {};
  for (const spec of workload.options) workloadOptions[spec.long] = all[spec.long];
  return { workload, values, given, workloadOptions };
}
