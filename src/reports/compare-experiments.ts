import path from 'node:path';
import { UserError } from '../errors.js';
import type { ExperimentResult } from '../result/experiment-result.js';
import { readExperiment } from '../result/read-experiment.js';
import { settingsLine } from './settings-text.js';
import { startWarning } from './chain-study-text.js';
import type { ChainStudyRow } from '../result/experiment-rows.js';
import { table } from './table.js';

type Row = Record<string, unknown>;

/** Per experiment: what keys a step (the same step in each file), how it is labelled, and the figures compared. */
interface Shape {
  key(row: Row): string;
  /** The step's label, from its rows in every file that has it. */
  label(rows: readonly Row[]): string;
  /** Steps in the files' order (false), or by their numeric key (true: peak's queries, growth's sizes). */
  numeric: boolean;
  metrics: readonly { field: string; unit: string }[];
}

const SHAPES: Record<string, Shape> = {
  peak: {
    key: (r) => String(r['number']),
    label: ([r]) => `${String(r!['number'])} ${String(r!['query'])}`,
    numeric: true,
    metrics: [{ field: 'peakQps', unit: 'peak q/s' }],
  },
  growth: { key: (r) => String(r['scale']), label: ([r]) => `scale ${String(r!['scale'])}`, numeric: true, metrics: [{ field: 'tps', unit: 'tps' }] },
  // Maintenance steps have no tps: their line shows '-'.
  'dead-rows': { key: (r) => String(r['name']), label: ([r]) => String(r!['name']), numeric: false, metrics: [{ field: 'tps', unit: 'tps' }] },
  // A run of the sequence by its style and place ("study distributed 2", "study localized 20"); its
  // terminals are in the label, each file's where they differ (the study's 33 on PostgreSQL, 150 on MariaDB).
  'chain-study': {
    key: (r) => `${String(r['statements'])} ${String(r['run'])}`,
    label: (rows) =>
      `${String(rows[0]!['statements'])} ${String(rows[0]!['run'])}, ${[...new Set(rows.map((r) => String(r['terminals'])))].join('/')} terminals`,
    numeric: false,
    metrics: [
      { field: 'trPerSec', unit: 'tr/sec' },
      { field: 'tps', unit: 'tps' },
    ],
  },
};

/**
 * `headroom compare` of experiment files: one line per step (query, size, run) present in any
 * file, the compared figures of each file and their ratio to the first. Files of different
 * experiments, or of an experiment compare does not know, are refused.
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
  const keys: string[] = [];
  for (const row of experiments.flatMap((e) => e.rows)) if (!keys.includes(shape.key(row))) keys.push(shape.key(row));
  if (shape.numeric) keys.sort((a, b) => Number(a) - Number(b));
  const rowOf = (e: ExperimentResult<Row>, key: string): Row | undefined => e.rows.find((r) => shape.key(r) === key);
  const value = (e: ExperimentResult<Row>, key: string, field: string): number | undefined => {
    const v = rowOf(e, key)?.[field];
    return typeof v === 'number' ? v : undefined;
  };
  const header = ['step', ...experiments.flatMap((_, i) => shape.metrics.flatMap((m) => [`${i + 1}: ${m.unit}`, ...(i > 0 ? ['ratio'] : [])]))];
  const rows = keys.map((key) => [
    shape.label(experiments.map((e) => rowOf(e, key)).filter((r): r is Row => r !== undefined)),
    ...experiments.flatMap((e, i) =>
      shape.metrics.flatMap((m) => {
        const first = value(experiments[0]!, key, m.field);
        const v = value(e, key, m.field);
        const ratio = i === 0 ? [] : [v !== undefined && first ? `x${(v / first).toFixed(2)}` : ''];
        return [v === undefined ? '-' : v.toFixed(1), ...ratio];
      }),
    ),
  ]);
  const legend = experiments.map((e, i) => {
    const set = settingsLine(e.serverSettings);
    return `${i + 1}: ${path.basename(files[i]!)}: ${e.experiment} on ${e.target.version.split(/ \(| on |,/)[0]}, ${e.status}${set ? `, ${set}` : ''}${e.target.durable ? '' : ', non-durable'}`;
  });
  // The study's Total time at a small scale is mostly the terminals' start: said per file, as its own table says it.
  const starts =
    kinds[0] === 'chain-study'
      ? experiments.flatMap((e, i) => {
          const line = startWarning(e as unknown as ExperimentResult<ChainStudyRow>);
          return line ? [`${i + 1}: ${line}`] : [];
        })
      : [];
  return [...legend, '', ...unlikeExperiments(experiments), ...table([header, ...rows]), '', `ratio: against file 1 (higher is better).`, ...starts].join('\n');
}

/** What differs between experiment files beyond what is compared on purpose (the DBMS): the workload, one DBMS's settings, durability. */
function unlikeExperiments(experiments: readonly ExperimentResult<Row>[]): string[] {
  const value = {
    workload: (e: ExperimentResult<Row>): string => e.runs[0]?.config.workload ?? '-',
    durability: (e: ExperimentResult<Row>): string => (e.target.durable ? 'durable' : 'non-durable'),
    // Growth's steps are its scales, compared step by step; the others run at one scale.
    scale: (e: ExperimentResult<Row>): string => (e.experiment === 'growth' ? '-' : String(e.runs[0]?.config.scale ?? '-')),
  };
  const detail = (['workload', 'scale', 'durability'] as const)
    .filter((name) => new Set(experiments.map(value[name])).size > 1)
    .map((name) => `${name} (${experiments.map((e, i) => `${i + 1}: ${value[name](e)}`).join(', ')})`);
  const settings = (e: ExperimentResult<Row>): string => JSON.stringify(Object.entries(e.target.settings).sort());
  const changed = [...new Set(experiments.map((e) => e.target.dbms))].filter(
    (dbms) => new Set(experiments.filter((e) => e.target.dbms === dbms).map(settings)).size > 1,
  );
  if (changed.length > 0) detail.push(`${changed.join(' and ')} server settings`);
  return detail.length === 0 ? [] : [`warning: these files differ in ${detail.join(', ')}: the ratios compare unlike things`];
}
