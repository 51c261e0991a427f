import { hostname } from 'node:os';
import { defineOptions } from '../config/options.js';
import { UserError } from '../errors.js';
import { BUS_OPTIONS, openBus } from '../agents/bus.js';
import { serveAgent } from '../agents/agent.js';
import { parseArgs } from '../config/args.js';
import { CLOSING_OPTIONS } from '../session/options.js';
import { logLine } from '../session/session.js';

export const AGENT_OPTIONS = defineOptions([
  ...BUS_OPTIONS,
  { long: 'name', type: 'string', value: 'NAME', help: 'how this agent is named in results (default HOST-PID)' },
  { long: 'once', type: 'boolean', help: 'serve one run, then exit (a Kubernetes Job pod then completes)' },
  ...CLOSING_OPTIONS,
]);

/** `headroom agent`: waits on the bus for plans signed with the shared secret and runs its share of each. */
export async function agentCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs(argv, AGENT_OPTIONS, 'agent');
  if (positionals.length > 0)
    throw new UserError(
      `"headroom agent" takes no workload, got: ${positionals.join(' ')}`,
      'the coordinator names the workload: headroom run WORKLOAD --agents K',
    );
  const name = values.name ?? `${hostname()}-${process.pid}`;
  const bus = await openBus(values, `headroom agent ${name}`);
  const stop = new AbortController();
  const onSignal = (): void => {
    if (stop.signal.aborted) process.exit(130);
    logLine(`agent ${name}: stopping (a run in progress sends what it measured)`);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await serveAgent(bus, { name, log: (line) => logLine(`${new Date().toISOString()} ${line}`), once: values['once'] === true, signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await bus.nc.drain().catch(() => undefined);
  }
  return stop.signal.aborted ? 130 : 0;
}
