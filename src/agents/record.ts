import type { AgentsRecord } from '../result/agents-record.js';

export { ON_AGENT_LOSS, type AgentMember, type AgentsRecord, type OnAgentLoss } from '../result/agents-record.js';

/** Summary lines of a run from several agents; empty for a local run. */
export function agentsText(record: AgentsRecord | undefined): string {
  if (!record) return '';
  const lost = record.members.filter((m) => m.lost);
  const lines = [
    `agents: ${record.count}, clocks within ${record.clockSpreadMs} ms of each other, started within ${record.startSpreadMs ?? '?'} ms; ` +
      `coordinator cpu ${(record.coordinatorCpuUs / 1e6).toFixed(2)} s`,
    ...record.members.map((m) => {
      const terminals = `${m.terminals.first}..${m.terminals.first + m.terminals.count - 1}`;
      const clock = `${m.clockOffsetMs >= 0 ? '+' : ''}${m.clockOffsetMs} ms`;
      const lost = m.lost
        ? `; LOST at ${m.lost.at} (${m.lost.afterSeconds} s in) after ${m.lost.transactionsStreamed} streamed transactions, not in the totals`
        : '';
      return `  ${m.name}: terminals ${terminals}, ${m.transactions} transactions, ${m.failed} failed, clock ${clock}${lost}`;
    }),
  ];
  const then = record.onAgentLoss === 'stop' ? 'was stopped (--on-agent-loss stop)' : 'went on with the rest (--on-agent-loss continue)';
  if (lost.length > 0) lines.push(`  ${lost.length} agent(s) lost: the run ${then}`);
  return lines.join('\n');
}
