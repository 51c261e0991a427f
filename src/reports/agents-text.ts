import type { AgentMember, AgentsRecord } from '../result/agents-record.js';
import type { LoadedResult } from './input.js';

/** Terminal ids first..last of an agent's shard. */
export function shardText(member: Pick<AgentMember, 'terminals'>): string {
  const { first, count } = member.terminals;
  return count === 1 ? `${first}` : `${first}..${first + count - 1}`;
}

export function signedMs(ms: number): string {
  return `${ms >= 0 ? '+' : ''}${ms} ms`;
}

/** What happened to a lost agent, or undefined for one that finished. */
export function lostText(member: AgentMember): string | undefined {
  const lost = member.lost;
  return lost ? `at ${lost.at} (${lost.afterSeconds} s in) after ${lost.transactionsStreamed} streamed transactions, not in the totals` : undefined;
}

/** One line for the run as a whole: how many agents, how far apart their clocks and starts, who was lost. */
export function agentsHeadline(record: AgentsRecord): string {
  const lost = record.members.filter((m) => m.lost).length;
  const offsets = record.members.map((m) => m.clockOffsetMs);
  const range = offsets.length > 0 ? ` (offsets ${Math.min(...offsets)} to ${Math.max(...offsets)} ms)` : '';
  return (
    `agents: ${record.count}, clock offsets spread ${record.clockSpreadMs} ms${range}, terminals started within ${record.startSpreadMs ?? '?'} ms, ` +
    `${lost} lost (--on-agent-loss ${record.onAgentLoss}); coordinator cpu ${(record.coordinatorCpuUs / 1e6).toFixed(2)} s`
  );
}

/** The summary's lines of a run from several agents: the run, then each agent's shard, clock and work; empty for a local run. */
export function agentsLines(record: AgentsRecord | undefined): string[] {
  if (!record) return [];
  const lines = [
    agentsHeadline(record),
    ...record.members.map((m) => {
      const cpu = m.clientCpuUs === null ? '' : `, client cpu ${(m.clientCpuUs / 1e6).toFixed(2)} s`;
      const lost = lostText(m);
      return (
        `  ${m.name}: agent #${m.index}, terminals ${shardText(m)} (${m.terminals.count}), ${m.transactions} transactions, ${m.failed} failed${cpu}, ` +
        `clock ${signedMs(m.clockOffsetMs)} (round trip ${m.roundTripMs} ms)${lost ? `; LOST ${lost}` : ''}`
      );
    }),
  ];
  const lost = record.members.filter((m) => m.lost).length;
  const then = record.onAgentLoss === 'stop' ? 'was stopped (--on-agent-loss stop)' : 'went on with the rest (--on-agent-loss continue)';
  if (lost > 0) lines.push(`  ${lost} agent(s) lost: the run ${then}`);
  return lines;
}

/** `compare`: how each run's terminals ran (on how many agents, how their clocks stood, who was lost); empty when every run was local. */
export function agentsComparisonLines(runs: readonly LoadedResult[]): string[] {
  if (runs.every((r) => r.result.agents === undefined)) return [];
  return [
    'agents:',
    ...runs.map((r, i) => {
      const record = r.result.agents;
      if (!record) return `  ${i + 1}: local (one process, ${r.result.config.jobs} job(s))`;
      const lost = record.members.filter((m) => m.lost);
      const shards = record.members.map((m) => `${m.name} ${shardText(m)}: ${m.transactions}`).join(', ');
      return (
        `  ${i + 1}: ${record.count} agents (${shards}), clock offsets spread ${record.clockSpreadMs} ms, started within ${record.startSpreadMs ?? '?'} ms, ` +
        `${lost.length === 0 ? 'none lost' : `lost ${lost.map((m) => `${m.name} ${m.lost!.afterSeconds} s in`).join(', ')}`}`
      );
    }),
  ];
}
