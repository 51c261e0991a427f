import { defineOptions, type OptionValuesOf } from '../config/options.js';
import { SECONDS_BOUND } from '../config/limits.js';
import { UserError } from '../errors.js';
import { BUS_OPTIONS } from '../agents/bus-options.js';
import type { AgentRun } from '../agents/coordinator.js';
import { ON_AGENT_LOSS } from '../agents/record.js';
import { logLine } from './session.js';

/** `headroom run --agents K` (and the experiments that take it): the terminals come from K agents on other machines (src/agents/). */
export const AGENT_RUN_OPTIONS = defineOptions([
  {
    long: 'agents',
    type: 'integer',
    min: 1,
    value: 'K',
    help: 'run the terminals on K headroom agents coordinated over --nats (-c in all, -j per agent), one merged result',
  },
  {
    long: 'on-agent-loss',
    type: 'string',
    value: 'WHAT',
    choices: ON_AGENT_LOSS,
    help: 'an agent silent for 5 s mid-run: continue with the rest, or stop the run',
    default: 'continue',
  },
  {
    long: 'agent-wait',
    type: 'integer',
    min: 1,
    ...SECONDS_BOUND,
    value: 'SECONDS',
    help: 'how long to wait for the agents to claim their shards and connect',
    default: 60,
  },
  ...BUS_OPTIONS,
]);

/** Options a distributed run cannot honour yet are refused, never ignored. */
const LOCAL_ONLY = ['journal', 'route'] as const;

/** The bus and its settings when --agents is given; a NATS server that is not there is one line (exit 2). */
export async function agentRunOf(
  values: OptionValuesOf<typeof AGENT_RUN_OPTIONS> & { route?: string | undefined },
  given: ReadonlySet<string>,
): Promise<AgentRun | undefined> {
  const agents = values.agents;
  if (agents === undefined) {
    const stray = [...given].find((name) => AGENT_RUN_OPTIONS.some((o) => o.long === name));
    if (stray) throw new UserError(`--${stray} applies to distributed runs only`, 'add --agents K --nats URL --trust SECRET, or drop it');
    return undefined;
  }
  const local = LOCAL_ONLY.find((name) => given.has(name) && !(name === 'route' && values['route'] === 'none'));
  if (local) throw new UserError(`--${local} is not supported with --agents`, `drop --${local}, or run without --agents`);
  const { openBus } = await import('../agents/bus.js');
  const bus = await openBus(values, 'headroom coordinator');
  return { bus, agents, onAgentLoss: values['on-agent-loss'], waitSeconds: values['agent-wait'], log: logLine };
}
