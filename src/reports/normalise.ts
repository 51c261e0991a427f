import { UserError } from '../errors.js';
import type { LoadedResult } from './input.js';
import { NORMALISED_METRICS, entryFromResult, type NormalisedMetric, type ReferenceEntry } from './reference.js';

/** One coefficient: the reference's figure over yours, for one run figure or one load phase. */
export interface Coefficient {
  name: string;
  reference: number;
  yours: number;
  /** reference / yours: multiply a figure of this machine by it to put it on the reference machine. */
  factor: number;
}

export interface Normalisation {
  reference: ReferenceEntry;
  yours: ReferenceEntry;
  metrics: (Coefficient & { name: NormalisedMetric })[];
  phases: Coefficient[];
  /** Differences between the two runs that the coefficients silently absorb. */
  notes: string[];
}

/**
 * Coefficients between a reference measurement and the user's run of the same workload on the same
 * DBMS on the user's machine (docs/chain-model.md, "Comparing results across machines"). The spec's
 * coefficient is yours / reference, by which later figures are divided; headroom keeps its
 * inverse, reference / yours, so that every figure is multiplied, rates and times alike.
 */
export function normalisation(candidates: readonly ReferenceEntry[], yoursRun: LoadedResult): Normalisation {
  const yours = entryFromResult(yoursRun);
  const same = candidates.filter((e) => e.workload === yours.workload && e.dbms === yours.dbms);
  if (same.length === 0) {
    const has = candidates.map((e) => `${e.label}: ${e.workload} on ${e.dbms}`).join('; ');
    throw new UserError(
      `the reference (${has}) and your run ${yours.label} (${yours.workload} on ${yours.dbms}) are not the same workload on the same DBMS`,
      'coefficients need your run of the reference workload on the reference DBMS: --normalise REFERENCE.json:YOUR-RUN.json',
    );
  }
  // Several entries for this DBMS (e.g. SSD and HDD): the one with your client count, else the first.
  const reference = same.find((e) => e.clients === yours.clients) ?? same[0]!;
  const ratio = (name: string, ref: number | undefined, mine: number | undefined): Coefficient | undefined =>
    ref !== undefined && mine !== undefined && ref > 0 && mine > 0 ? { name, reference: ref, yours: mine, factor: ref / mine } : undefined;
  const metrics = NORMALISED_METRICS.flatMap((name) => {
    const c = ratio(name, reference.metrics[name], yours.metrics[name]);
    return c ? [{ ...c, name }] : [];
  });
  const phases = Object.keys(reference.phases).flatMap((name) => {
    const c = ratio(name, reference.phases[name], yours.phases[name]);
    return c ? [c] : [];
  });
  if (metrics.length === 0 && phases.length === 0) {
    throw new UserError(
      `${reference.label} and ${yours.label} have no figure in common (no tps, latency or load phase of the same name)`,
      'normalise with a run that measured what the reference measured',
    );
  }
  return { reference, yours, metrics, phases, notes: differences(reference, yours) };
}

function differences(reference: ReferenceEntry, yours: ReferenceEntry): string[] {
  const notes: string[] = [];
  if (reference.clients !== null && reference.clients !== yours.clients)
    notes.push(`clients differ: the reference ran ${reference.clients}, your run ${yours.clients}`);
  if (reference.scale !== null && reference.scale !== yours.scale)
    notes.push(`scales differ: the reference ran at scale ${reference.scale}, your run at ${yours.scale}`);
  for (const [option, value] of Object.entries(reference.workloadOptions)) {
    if (yours.workloadOptions[option] !== undefined && String(yours.workloadOptions[option]) !== String(value)) {
      notes.push(`--${option} differs: the reference ran ${String(value)}, your run ${String(yours.workloadOptions[option])}`);
    }
  }
  if (reference.version !== yours.version) notes.push(`versions differ: ${reference.version} vs ${yours.version}; the coefficients hold that difference too`);
  return notes;
}

export interface NormalisedRun {
  run: LoadedResult;
  metrics: { name: NormalisedMetric; measured: number | null; normalised: number | null; reference: number | null }[];
  phases: { name: string; measured: number | null; normalised: number | null }[];
}

/**
 * A run's figures as if measured on the reference machine: each figure times its coefficient. Runs
 * must be of the reference's workload; they may be of another DBMS or other settings (that is what
 * the comparison is for), and each is shown beside the reference's figure for its own DBMS when
 * the reference has one.
 */
export function applyNormalisation(n: Normalisation, run: LoadedResult, candidates: readonly ReferenceEntry[]): NormalisedRun {
  const entry = entryFromResult(run);
  if (entry.workload !== n.yours.workload) {
    throw new UserError(
      `${run.label} is a ${entry.workload} run; the coefficients are for ${n.yours.workload}`,
      `compare ${n.yours.workload} runs only, or normalise with a ${entry.workload} reference`,
    );
  }
  const sameDbms = candidates.filter((e) => e.workload === entry.workload && e.dbms === entry.dbms);
  const reference = sameDbms.find((e) => e.clients === entry.clients) ?? sameDbms[0];
  return {
    run,
    metrics: n.metrics.map((c) => {
      const measured = entry.metrics[c.name] ?? null;
      return { name: c.name, measured, normalised: measured === null ? null : measured * c.factor, reference: reference?.metrics[c.name] ?? null };
    }),
    phases: n.phases.map((c) => {
      const measured = entry.phases[c.name] ?? null;
      return { name: c.name, measured, normalised: measured === null ? null : measured * c.factor };
    }),
  };
}

/** The coefficients and every run normalised by them: what `compare`, the HTML report and Markdown show. */
export interface NormalisedComparison {
  n: Normalisation;
  /** Your run of the reference first, then the other runs (your run not twice). */
  runs: NormalisedRun[];
}

export function normaliseRuns(candidates: readonly ReferenceEntry[], yours: LoadedResult, others: readonly LoadedResult[]): NormalisedComparison {
  const n = normalisation(candidates, yours);
  const runs = [yours, ...others.filter((o) => o.file !== yours.file)].map((run) => applyNormalisation(n, run, candidates));
  return { n, runs };
}

const DIGITS: Record<string, number> = { tps: 1, p50: 3, p99: 3 };
const UNITS: Record<string, string> = { tps: '', p50: ' ms', p99: ' ms' };

/** A figure's name with its unit: "tps", "p99 ms". */
export function figureName(name: string): string {
  return `${name}${UNITS[name] ?? ''}`;
}

/** A run figure as the other reports print it; '-' for none. */
export function formatFigure(name: string, value: number | null): string {
  return value === null ? '-' : value.toFixed(DIGITS[name] ?? 2);
}

/** Load phases run from milliseconds (small scales) to hours: three significant digits below 100 s. */
export function formatSeconds(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

/** A normalised figure over the reference's figure for the run's DBMS, "x0.93"; '' without one. */
export function formatVsReference(m: NormalisedRun['metrics'][number]): string {
  return m.normalised !== null && m.reference ? `x${(m.normalised / m.reference).toFixed(2)}` : '';
}
