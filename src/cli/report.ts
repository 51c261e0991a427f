import { writeWhole } from '../common/write-whole.js';
import { fileErrorReason } from '../common/file-errors.js';
import path from 'node:path';
import { defineOption, defineOptions } from '../config/options.js';
import { UserError } from '../errors.js';
import { compareText } from '../reports/compare-text.js';
import { compareExperimentsText } from '../reports/compare-experiments.js';
import { isExperimentFile } from '../result/read-experiment.js';
import { normaliseText } from '../reports/normalise-text.js';
import { readReference } from '../reports/reference.js';
import { seriesCsv } from '../reports/csv.js';
import { renderHtmlReport } from '../reports/html/page.js';
import { readResults, stepsAsRuns, type LoadedResult, type LoadedSweep } from '../reports/input.js';
import { normaliseRuns, type NormalisedComparison } from '../reports/normalise.js';
import { readResult } from '../result/read.js';
import { sweepCompareText, sweepCsv, sweepMarkdown } from '../reports/sweep-outputs.js';
import { markdownSummary, normaliseMarkdown } from '../reports/markdown.js';
import { experimentMarkdown } from '../reports/experiment-report.js';
import { parseArgs } from '../config/args.js';
import { CLOSING_OPTIONS } from '../session/options.js';

export const DEFAULT_REPORT_FILE = 'headroom-report.html';

// Also on report: the HTML report and its Markdown get the same normalised table as the terminal.
const NORMALISE_OPTION = defineOption({
  long: 'normalise',
  type: 'string',
  value: 'REFERENCE:YOURS',
  help: 'coefficients between a reference (a result file, or a reference file such as reference/chain-study.json, FILE#ENTRY to pick an entry) and your run of the same workload on the same DBMS; the runs are shown as if on the reference machine',
});

export const REPORT_OPTIONS = defineOptions([
  { long: 'out', short: 'o', type: 'string', value: 'FILE', help: `the HTML report (default ${DEFAULT_REPORT_FILE} unless only --csv or --markdown is given)` },
  { long: 'csv', type: 'string', value: 'FILE', help: "also write the per-second series of every run as CSV (and a sweep's table as FILE-sweep.csv)" },
  { long: 'markdown', type: 'boolean', help: 'print a summary table in Markdown (to paste into an issue)' },
  NORMALISE_OPTION,
  ...CLOSING_OPTIONS,
]);

export const COMPARE_OPTIONS = defineOptions([NORMALISE_OPTION, ...CLOSING_OPTIONS]);

/** `headroom report FILE...`: one self-contained HTML page, and on request CSV and Markdown. */
export async function reportCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals, given } = parseArgs(argv, REPORT_OPTIONS, 'report');
  const { runs, sweeps, experiments } = readResults(positionals);
  const csv = values.csv;
  const html = values.out ?? (given.has('csv') || given.has('markdown') ? undefined : DEFAULT_REPORT_FILE);
  if (html !== undefined && csv !== undefined && path.resolve(html) === path.resolve(csv))
    throw new UserError('--out and --csv name the same file', 'give them different names');
  if (html !== undefined && positionals.some((p) => path.resolve(p) === path.resolve(html)))
    throw new UserError(`--out ${html} would overwrite a result file`, 'name another file for the report');
  const pair = values.normalise;
  const normalised = pair === undefined ? undefined : readNormalised(pair, { runs, sweeps });
  if (html !== undefined) {
    await writeReport(html, renderHtmlReport(runs, sweeps, normalised, undefined, experiments));
    process.stderr.write(`report: ${html}\n`);
  }
  if (csv !== undefined) {
    await writeReport(csv, seriesCsv([...runs, ...sweeps.flatMap(stepsAsRuns)]));
    process.stderr.write(`series: ${csv}\n`);
    if (sweeps.length > 0) {
      // A second table of other columns: its own file beside the series, named after it.
      const table = sweepCsvPath(csv);
      await writeReport(table, sweepCsv(sweeps));
      process.stderr.write(`sweep table: ${table}\n`);
    }
  }
  if (values['markdown'] === true) {
    const parts = [
      ...(runs.length > 0 ? [markdownSummary(runs)] : []),
      ...experiments.map(experimentMarkdown),
      ...(sweeps.length > 0 ? [sweepMarkdown(sweeps)] : []),
      ...(normalised ? [normaliseMarkdown(normalised)] : []),
    ];
    process.stdout.write(parts.join('\n'));
  }
  return 0;
}

/** `headroom compare FILE FILE...`: the runs side by side in the terminal. */
export async function compareCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs(argv, COMPARE_OPTIONS, 'compare');
  const pair = values.normalise;
  if (pair !== undefined) {
    const others = positionals.length > 0 ? readResults(positionals) : { runs: [], sweeps: [], experiments: [] };
    process.stdout.write(`${normaliseText(readNormalised(pair, others))}\n`);
    return 0;
  }
  if (positionals.length < 2)
    throw new UserError(
      `"headroom compare" needs two or more result files, got ${positionals.length}`,
      'e.g. headroom compare before.json after.json (headroom report shows a single run)',
    );
  const experiments = positionals.filter(isExperimentFile);
  if (experiments.length > 0 && experiments.length < positionals.length) {
    throw new UserError(
      `${experiments[0]} is an experiment file and ${positionals.find((p) => !isExperimentFile(p))} is not: they do not compare`,
      'compare run results with run results, experiment files with experiment files of the same experiment',
    );
  }
  if (experiments.length > 0) return (process.stdout.write(`${compareExperimentsText(positionals)}\n`), 0);
  const { runs, sweeps } = readResults(positionals);
  process.stdout.write(`${[...(runs.length > 0 ? [compareText(runs)] : []), ...(sweeps.length > 0 ? [sweepCompareText(sweeps)] : [])].join('\n\n')}\n`);
  return 0;
}

/**
 * `--normalise REFERENCE[#ENTRY]:YOURS` of compare and report: the coefficients, applied to your run
 * and to the other runs (a sweep step by step). Bad pairs are refused before anything is written.
 */
function readNormalised(pair: string, others: { runs: readonly LoadedResult[]; sweeps: readonly LoadedSweep[] }): NormalisedComparison {
  const parts = pair.split(':');
  if (parts.length !== 2 || parts.some((part) => part === '')) {
    throw new UserError(
      `--normalise "${pair}" is not REFERENCE:YOURS`,
      'e.g. --normalise reference/chain-study.json:my-postgres-run.json (file names without colons)',
    );
  }
  const yours = readResult(parts[1]!);
  const label = path.basename(parts[1]!).replace(/\.json$/i, '');
  return normaliseRuns(readReference(parts[0]!), { file: parts[1]!, label, result: yours }, [...others.runs, ...others.sweeps.flatMap(stepsAsRuns)]);
}

/** series.csv -> series-sweep.csv */
export function sweepCsvPath(csv: string): string {
  const ext = path.extname(csv);
  return `${csv.slice(0, csv.length - ext.length)}-sweep${ext || '.csv'}`;
}

/**
 * Whole or not at all, as results are (common/write-whole.ts), so a report that exists is whole; a
 * failed write (a full disk) leaves no temporary file and is told in one line. The figures stay in
 * the result files, from which the report can be made again.
 */
async function writeReport(file: string, content: string): Promise<void> {
  try {
    await writeWhole(file, content);
  } catch (error) {
    throw new UserError(`cannot write ${file}: ${fileErrorReason(error)}`, 'free some space or choose a folder you can write to', { cause: error });
  }
}
