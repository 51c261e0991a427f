import type { AgentsRecord } from '../../result/agents-record.js';
import { agentsHeadline, lostText, shardText } from '../agents-text.js';
import { escapeHtml as e, htmlTable } from './markup.js';

/** A run from several agents: the run's clocks and losses, then one row per agent (its shard, clock and work). */
export function agentsSection(record: AgentsRecord | undefined): string {
  if (!record) return '';
  const lost = record.members.filter((m) => m.lost).length;
  return [
    '<h3>Agents</h3>',
    `<p class="note">${e(agentsHeadline(record))}${lost > 0 ? e(`; the lost agents' terminals are not in the totals`) : ''}</p>`,
    htmlTable(
      ['agent', 'terminals', 'count', 'clock offset ms', 'round trip ms', 'transactions', 'failed', 'client CPU s', 'lost after s'],
      record.members.map((m) => [
        e(`${m.name} (#${m.index})`),
        e(shardText(m)),
        String(m.terminals.count),
        `${m.clockOffsetMs >= 0 ? '+' : ''}${m.clockOffsetMs}`,
        String(m.roundTripMs),
        String(m.transactions),
        String(m.failed),
        m.clientCpuUs === null ? '-' : (m.clientCpuUs / 1e6).toFixed(2),
        m.lost ? String(m.lost.afterSeconds) : '',
      ]),
      { textColumns: 2 },
    ),
    ...record.members.filter((m) => m.lost).map((m) => `<p class="warning">${e(`${m.name} lost ${lostText(m)!}`)}</p>`),
  ].join('\n');
}
