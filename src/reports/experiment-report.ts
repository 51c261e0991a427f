import type { ExperimentResult } from '../result/experiment-result.js';
import type { ChainStudyRow, DeadRowsRow, GrowthRow, PeakRow } from '../result/experiment-rows.js';
import { chainStudyText } from './chain-study-text.js';
import { growthText } from './growth-text.js';
import { peakText } from './peak-text.js';
import { deadRowsText } from './dead-rows-text.js';
import type { LoadedExperiment } from './input.js';

type Rows = ExperimentResult<Record<string, unknown>>;

/** Each experiment's own table, as `headroom experiment NAME` printed it. */
const TEXTS: Record<string, (result: Rows, file: string) => string> = {
  peak: (result, file) => peakText(result as unknown as ExperimentResult<PeakRow>, file),
  growth: (result, file) => growthText(result as unknown as ExperimentResult<GrowthRow>, file),
  'dead-rows': (result, file) => deadRowsText(result as unknown as ExperimentResult<DeadRowsRow>, file),
  'chain-study': (result, file) => chainStudyText(result as unknown as ExperimentResult<ChainStudyRow>, file),
};

/** The experiment's table as text; one that this version does not know gets a line saying so. */
export function experimentText(loaded: LoadedExperiment): string {
  const text = TEXTS[loaded.experiment.experiment];
  return text ? text(loaded.experiment, loaded.file) : `${loaded.file}: experiment "${loaded.experiment.experiment}" has no table in this version of headroom`;
}

/** For --markdown: the experiment's own table in a code block. */
export function experimentMarkdown(loaded: LoadedExperiment): string {
  return `\n\`${loaded.label}\` (experiment ${loaded.experiment.experiment}):\n\n\`\`\`\n${experimentText(loaded)}\n\`\`\`\n`;
}
