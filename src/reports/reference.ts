import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DbmsName } from '../drivers/driver.js';
import { UserError } from '../errors.js';
import { readResult } from '../result/read.js';
import { dbmsLabel } from './comparison.js';
import type { LoadedResult } from './input.js';

export const REFERENCE_SCHEMA = 'headroom.reference/1';

/** The run figures a coefficient can be taken for; the same names as in `headroom compare`. */
export const NORMALISED_METRICS = ['tps', 'p50', 'p99'] as const;
export type NormalisedMetric = (typeof NORMALISED_METRICS)[number];

/**
 * One reference measurement: a workload on a DBMS on a described machine, with the figures known
 * for it. From a reference file (published figures, docs/reference-format.md) or a result file.
 */
export interface ReferenceEntry {
  id: string;
  /** What to call it in output: file and entry. */
  label: string;
  workload: string;
  dbms: DbmsName;
  version: string;
  clients: number | null;
  /** The workload's scale (chain: 1 = the study's full data). */
  scale: number | null;
  workloadOptions: Record<string, unknown>;
  metrics: Partial<Record<NormalisedMetric, number>>;
  /** Load phase seconds by phase name. */
  phases: Record<string, number>;
  /** Machine, storage, settings, and where the figures come from, in a line. */
  describe: string;
}

/** The figures of a result file, as a reference entry (its id is its file label). */
export function entryFromResult(run: LoadedResult): ReferenceEntry {
  const r = run.result;
  return {
    id: run.label,
    label: run.label,
    workload: r.config.workload,
    dbms: r.target.dbms,
    version: dbmsLabel(run),
    clients: r.config.clients,
    scale: r.config.scale,
    workloadOptions: r.config.workloadOptions,
    metrics: { tps: r.summary.tps, p50: r.summary.latencyMs.p50, p99: r.summary.latencyMs.p99 },
    phases: Object.fromEntries(r.data.phases.map((p) => [p.name, p.seconds])),
    describe: `${r.host.cpuModel}, ${r.host.cores} cores, ${(r.host.memoryBytes / 2 ** 30).toFixed(0)} GB, run ${r.startedAt}`,
  };
}

/**
 * The entries of `FILE` or `FILE#ID`: a reference file (all its entries, or the one named ID) or
 * a result file (its one run).
 */
export function readReference(spec: string): ReferenceEntry[] {
  const hash = spec.lastIndexOf('#');
  const [file, id] = hash > 0 ? [spec.slice(0, hash), spec.slice(hash + 1)] : [spec, undefined];
  const parsed = parseJson(file);
  if (!isRecord(parsed) || parsed['schema'] !== REFERENCE_SCHEMA) {
    if (id !== undefined) throw new UserError(`${file}#${id}: only a reference file has entries to pick`, `give ${file} alone, or a ${REFERENCE_SCHEMA} file`);
    const label = path.basename(file).replace(/\.json$/i, '');
    return [entryFromResult({ file, label, result: readResult(file) })];
  }
  const entries = checkEntries(file, parsed);
  if (id === undefined) return entries;
  const picked = entries.filter((e) => e.id === id);
  if (picked.length === 0) throw new UserError(`${file} has no entry "${id}"`, `its entries: ${entries.map((e) => e.id).join(', ')}`);
  return picked;
}

function checkEntries(file: string, parsed: Record<string, unknown>): ReferenceEntry[] {
  const machine = isRecord(parsed['hardware']) ? Object.values(parsed['hardware']).join(', ') : 'machine not described';
  const list = parsed['entries'];
  if (!Array.isArray(list) || list.length === 0) throw new UserError(`${file} is a damaged reference file (no "entries")`, 'see docs/reference-format.md');
  const name = path.basename(file).replace(/\.json$/i, '');
  return list.map((raw, i) => {
    const e = isRecord(raw) ? raw : {};
    const metrics = isRecord(e['metrics']) ? e['metrics'] : {};
    const phases = isRecord(e['phases']) ? e['phases'] : {};
    const numbers = (o: Record<string, unknown>): boolean => Object.values(o).every((v) => typeof v === 'number' && v > 0);
    if (typeof e['id'] !== 'string' || typeof e['workload'] !== 'string' || typeof e['dbms'] !== 'string' || !numbers(metrics) || !numbers(phases)) {
      throw new UserError(
        `${file} is a damaged reference file (entry ${i + 1} needs id, workload, dbms, and positive numbers in metrics and phases)`,
        'see docs/reference-format.md',
      );
    }
    return {
      id: e['id'],
      label: `${name}#${e['id']}`,
      workload: e['workload'],
      dbms: e['dbms'] as DbmsName,
      version: typeof e['version'] === 'string' ? e['version'] : e['dbms'],
      clients: typeof e['clients'] === 'number' ? e['clients'] : null,
      scale: typeof e['scale'] === 'number' ? e['scale'] : null,
      workloadOptions: isRecord(e['workloadOptions']) ? e['workloadOptions'] : {},
      metrics: Object.fromEntries(Object.entries(metrics).filter(([k]) => (NORMALISED_METRICS as readonly string[]).includes(k))) as ReferenceEntry['metrics'],
      phases: phases as Record<string, number>,
      describe: [
        machine,
        typeof e['storage'] === 'string' ? e['storage'] : undefined,
        typeof e['settings'] === 'string' ? `settings: ${e['settings']}` : undefined,
      ]
        .filter(Boolean)
        .join(', '),
    };
  });
}

function parseJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // The result reader's one-line error for a missing or unreadable file.
    readResult(file);
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UserError(
      `${file} is neither a reference file nor a result file (not JSON)`,
      `give a ${REFERENCE_SCHEMA} file or a file written by headroom run`,
    );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
