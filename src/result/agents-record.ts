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
