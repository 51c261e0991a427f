import path from 'node:path';
import { UserError } from '../errors.js';
import type { ExperimentResult } from '../result/experiment-result.js';
import { readExperiment } from '../result/read-experiment.js';
import { settingsLine } from './settings-text.js';
import { table } from './table.js';

/** Per experiment: which row field keys a step, how it is labelled, and the figure compared. */
const SHAPES: Record<string, { key: string; label(row: Record<string, unknown>): string; metric: string; unit: string }> = {
  peak: { key: 'number', label: (r) => `${String(r['number'])} ${String(r['query'])}`, metric: 'peakQps', unit: 'peak q/s' },
  growth: { key: 'scale', label: (r) => `scale ${String(r['scale'])}`, metric: 'tps', unit: 'tps' },
  // Maintenance steps have no tps: their line shows '-'.
  'dead-rows': { key: 'name', label: (r) => String(r['name']), metric: 'tps', unit: 'tps' },
};

/**
 * `headroom compare` of experiment files: one line per step (query, size) present in any file,
 * the compared figure of each file and its ratio to the first. Files of different experiments,
 * or of an experiment compare does not know, are refused.
 */
export function compareExperimentsText(files: readonly string[]): string {
  const experiments = files.map((file) => readExperiment(file));
  const kinds = [...new Set(experiments.map((e) => e.experiment))];
  if (kinds.length > 1)
    throw new UserError(
      `these files hold different experiments (${kinds.join(', ')}), which do not compare`,
      'compare files of one experiment, e.g. two peak files',
    );
  const shape = SHAPES[kinds[0]!];
  if (!shape) throw new UserError(`headroom compare does not know experiment "${kinds[0]}"`, `it compares ${Object.keys(SHAPES).join(', ')} files`);
  const keys: unknown[] = [];
  const labels = new Map<unknown, string>();
  for (const row of experiments.flatMap((e) => e.rows)) {
    if (!labels.has(row[shape.key])) (keys.push(row[shape.key]), labels.set(row[shape.key], shape.label(row)));
  }
  if (keys.every((k) => typeof k === 'number')) (keys as number[]).sort((a, b) => a - b);
  const value = (e: ExperimentResult<Record<string, unknown>>, key: unknown): number | undefined => {
    const v = e.rows.find((r) => r[shape.key] === key)?.[shape.metric];
    return typeof v === 'number' ? v : undefined;
  };
  const header = ['step', ...experiments.flatMap((_, i) => [`${i + 1}: ${shape.unit}`, ...(i > 0 ? ['ratio'] : [])])];
  const rows = keys.map((key) => {
    const first = value(experiments[0]!, key);
    return [
      labels.get(key)!,
      ...experiments.flatMap((e, i) => {
        const v = value(e, key);
        const ratio = i === 0 ? [] : [v !== undefined && first ? `x${(v / first).toFixed(2)}` : ''];
        return [v === undefined ? '-' : v.toFixed(1), ...ratio];
      }),
    ];
  });
  const legend = experiments.map((e, i) => {
    const set = settingsLine(e.serverSettings);
    return `${i + 1}: ${path.basename(files[i]!)}: ${e.experiment} on ${e.target.version.split(/ \(| on |,/)[0]}, ${e.status}${set ? `, ${set}` : ''}${e.target.durable ? '' : ', non-durable'}`;
  });
  return [...legend, '', ...unlikeExperiments(experiments), ...table([header, ...rows]), '', `ratio: against file 1 (higher is better).`].join('\n');
}

/** What differs between experiment files beyond what is compared on purpose (the DBMS): the workload, one DBMS's settings, durability. */
function unlikeExperiments(experiments: readonly ExperimentResult<Record<string, unknown>>[]): string[] {
  const value = {
    workload: (e: ExperimentResult<Record<string, unknown>>): string => e.runs[0]?.config.workload ?? '-',
    durability: (e: ExperimentResult<Record<string, unknown>>): string => (e.target.durable ? 'durable' : 'non-durable'),
  };
  const detail = (['workload', 'durability'] as const)
    .filter((name) => new Set(experiments.map(value[name])).size > 1)
    .map((name) => `${name} (${experiments.map((e, i) => `${i + 1}: ${value[name](e)}`).join(', ')})`);
  const settings = (e: ExperimentResult<Record<string, unknown>>): string => JSON.stringify(Object.entries(e.target.settings).sort());
  const changed = [...new Set(experiments.map((e) => e.target.dbms))].filter(
    (dbms) => new Set(experiments.filter((e) => e.target.dbms === dbms).map(settings)).size > 1,
  );
  if (changed.length > 0) detail.push(`${changed.join(' and ')} server settings`);
  return detail.length === 0 ? [] : [`warning: these files differ in ${detail.join(', ')}: the ratios compare unlike things`];
}
