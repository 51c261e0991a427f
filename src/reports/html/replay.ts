import type { RunResult } from '../../result/result.js';
import { REPLAY_KIND_HEADER, REPLAY_SWEEP_HEADER, replayFacts, replayKindRows, replaySweepRows, replaySweepVerdict } from '../replay-text.js';
import { escapeHtml as e, htmlTable } from './markup.js';

/**
 * A replay's own part of its run section: the same facts, statements per kind and --until sweep
 * the terminal printed, so that the page answers what the replay was for (did it run everything,
 * did it keep up, at what speed it stops holding) and not only its latency.
 */
export function replaySection(result: RunResult): string {
  const record = result.replay;
  if (!record) return '';
  const [title, ...facts] = replayFacts(result);
  const parts = [
    '<h3>Replay</h3>',
    `<p class="note">${e(title!)}</p>`,
    `<ul class="server">${facts.map((line) => `<li>${e(line)}</li>`).join('')}</ul>`,
    htmlTable(
      [...REPLAY_KIND_HEADER],
      replayKindRows(record).map((row) => row.map(e)),
    ),
  ];
  if (record.sweep) {
    parts.push(
      `<h3>Speeds tried (--until ${e(record.sweep.until.join(','))})</h3>`,
      htmlTable(
        [...REPLAY_SWEEP_HEADER],
        replaySweepRows(record.sweep).map((row) => row.map(e)),
      ),
      `<p class="note">${replaySweepVerdict(record.sweep).map(e).join('<br>')}</p>`,
    );
  }
  return parts.join('\n');
}
