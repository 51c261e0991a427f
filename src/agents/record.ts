/** The result's `agents` section: who ran which terminals, how their clocks stood, and who was lost. */
export interface AgentsRecord {
  count: number;
  onAgentLoss: OnAgentLoss;
  /** Largest minus smallest clock offset to the coordinator's clock, in ms. */
  clockSpreadMs: number;
  /** Largest minus smallest start of the agents' terminals, on the coordinator's clock (offsets applied), in ms. */
  startSpreadMs: number | null;
  /** The coordinator process's own CPU during the run (not in summary.clientCpu, which is the agents'). */
  coordinatorCpuUs: number;
  members: AgentMember[];
}

export const ON_AGENT_LOSS = ['continue', 'stop'] as const;
export type OnAgentLoss = (typeof ON_AGENT_LOSS)[number];

export interface AgentMember {
  name: string;
  index: number;
  /** Terminal ids first..first+count-1. */
  terminals: { first: number; count: number };
  /** Coordinator clock minus the agent's, estimated from the fastest request/reply pair. */
  clockOffsetMs: number;
  roundTripMs: number;
  /** From its totals; for a lost agent, what its streamed intervals held. */
  transactions: number;
  failed: number;
  clientCpuUs: number | null;
  /** Absent unless the agent went silent mid-run. */
  lost?: { at: string; afterSeconds: number; transactionsStreamed: number };
}

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
      const lost = m.lost ? `; LOST at ${m.lost.at} (${m.lost.afterSeconds} s in) after ${m.lost.transactionsStreamed} streamed transactions, not in the totals` : '';
      return `  ${m.name}: terminals ${terminals}, ${m.transactions} transactions, ${m.failed} failed, clock ${clock}${lost}`;
    }),
  ];
  const then = record.onAgentLoss === 'stop' ? 'was stopped (--on-agent-loss stop)' : 'went on with the rest (--on-agent-loss continue)';
  if (lost.length > 0) lines.push(`  ${lost.length} agent(s) lost: the run ${then}`);
  return lines.join('\n');
}
