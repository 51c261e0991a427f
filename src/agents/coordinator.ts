import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Msg, Subscription } from 'nats';
import { serverTargetOf, type Target } from '../config/target.js';
import type { EngineConfig, EngineOutcome } from '../engine/engine.js';
import { round } from '../common/round.js';
import { intervalPoint, mergeTotals, type SeriesPoint } from '../engine/measurements.js';
import { fromThreadError } from '../engine/thread-error.js';
import { UserError } from '../errors.js';
import { subjects, type Bus, type RunSubject } from './bus.js';
import type { AgentPlan, Beat, Call, Claim, ClaimReply, Done, Hello, Ready, Stop, Tick, WireOutcome } from './messages.js';
import { planFiles } from './plan-files.js';
import type { AgentMember, AgentsRecord, OnAgentLoss } from './record.js';
import type { ClientScheduling } from '../engine/scheduling.js';

/** An agent silent this long (no tick, no heartbeat) is lost. */
export const AGENT_SILENCE_MS = 5_000;
const BEAT_MS = 1_000;
/** How often the coordinator calls for idle agents while shards are left. */
const CALL_MS = 1_000;
/** How long a stopped or finished run waits for the remaining agents' totals. */
const DONE_GRACE_MS = 15_000;

export interface AgentRun {
  bus: Bus;
  agents: number;
  onAgentLoss: OnAgentLoss;
  /** How long to wait for the agents to claim their shards and open their connections. */
  waitSeconds: number;
  log: (line: string) => void;
}

export type DistributedOutcome = EngineOutcome & { agents: AgentsRecord };

interface Member {
  name: string;
  index: number;
  first: number;
  count: number;
  ready?: Ready;
  lastHeard: number;
  ticks: Tick[];
  beatTransactions: number;
  done?: Done;
  lost?: AgentMember['lost'];
}

/**
 * The coordinator's side of `headroom run --agents K`: publishes the signed plan, deals the
 * terminals to the first K agents that claim them, starts them at one barrier time, merges their
 * streamed intervals into one series and their totals into one outcome, as the engine merges jobs.
 */
export async function runAgents(
  run: AgentRun,
  config: EngineConfig,
  signal: AbortSignal,
  onInterval: (point: SeriesPoint) => void,
): Promise<DistributedOutcome> {
  const { bus, agents, log } = run;
  if (config.clients < agents) {
    throw new UserError(`-c ${config.clients} is fewer than --agents ${agents}`, 'each agent needs at least one terminal: use -c of at least --agents');
  }
  const cpuAtStart = process.cpuUsage();
  const runId = randomBytes(8).toString('hex');
  const plan = await planOf(config, runId, agents);
  const subject = (what: RunSubject): string => subjects.run(bus.prefix, runId, what);
  const send = (what: RunSubject, body: unknown): void => bus.nc.publish(subject(what), bus.signer.seal(body));
  const members: Member[] = [];
  const subscriptions: Subscription[] = [];
  let wake: () => void = () => undefined;
  const changed = (): Promise<void> => new Promise((resolve) => (wake = resolve));
  const listen = (what: RunSubject, handle: (body: never, message: Msg) => void): void => {
    subscriptions.push(
      bus.nc.subscribe(subject(what), {
        callback: (error, message) => {
          if (error) return;
          let body: never;
          try {
            body = bus.signer.open<never>(message.data);
          } catch (refused) {
            log(`refused a message on ${message.subject}: ${(refused as Error).message}`);
            return;
          }
          handle(body, message);
          wake();
        },
      }),
    );
  };
  // Each idle agent that answers a call gets the plan addressed to its instance.
  listen('hello', (hello: Hello) => {
    if (members.length < agents) bus.nc.publish(subjects.plans(bus.prefix, hello.instance), bus.signer.seal({ ...plan, instance: hello.instance }));
  });
  listen('claim', (claim: Claim, message) => {
    let reply: ClaimReply = { kind: 'full' };
    if (members.length < agents) {
      const index = members.length;
      const { first, count } = shardOf(index, agents, config.clients);
      members.push({ name: claim.agent, index, first, count, lastHeard: Date.now(), ticks: [], beatTransactions: 0 });
      log(`agent ${claim.agent} claimed terminals ${first}..${first + count - 1}`);
      reply = { kind: 'shard', instance: claim.instance, index, first, count, now: Date.now() };
    }
    message.respond(bus.signer.seal(reply));
  });
  listen('time', (_: unknown, message) => message.respond(bus.signer.seal({ now: Date.now() })));
  const member = (index: number): Member | undefined => members[index];
  const heard = (index: number): void => {
    const m = member(index);
    if (m) m.lastHeard = Date.now();
  };
  listen('ready', (ready: Ready) => {
    const m = member(ready.index);
    if (m) m.ready = ready;
    heard(ready.index);
  });
  listen('beat', (beat: Beat) => {
    const m = member(beat.index);
    if (m) m.beatTransactions = beat.transactions;
    heard(beat.index);
  });
  listen('tick', (tick: Tick) => {
    member(tick.index)?.ticks.push(tick);
    heard(tick.index);
  });
  listen('done', (done: Done) => {
    const m = member(done.index);
    if (m && !m.lost) m.done = done;
  });
  await bus.nc.flush();
  const beats = setInterval(() => send('coordinator', { kind: 'beat' }), BEAT_MS);
  const stopAll = (reason: string): void => send('stop', { kind: 'stop', reason } satisfies Stop);
  const onAbort = (): void => {
    stopAll('interrupted on the coordinator');
    wake();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const series: SeriesPoint[] = [];
  let emitted = 0;
  let startedAt = Date.now();
  let lossStop: Error | undefined;
  try {
    // Claims and ready: the call goes out every second, so agents started later still hear it.
    log(`waiting up to ${run.waitSeconds} s for ${agents} agent(s) on ${subjects.calls(bus.prefix)} (run ${runId})`);
    const deadline = Date.now() + run.waitSeconds * 1000;
    let calledAt = 0;
    while (!(members.length === agents && members.every((m) => m.ready || m.done))) {
      if (signal.aborted) throw new UserError('interrupted while waiting for agents');
      if (Date.now() > deadline) {
        const ready = members.filter((m) => m.ready).length;
        throw new UserError(
          `only ${members.length} of ${agents} agent(s) claimed a shard (${ready} ready) within ${run.waitSeconds} s`,
          `start more: headroom agent --nats URL --trust SECRET${bus.prefix === 'headroom' ? '' : ` --nats-subject ${bus.prefix}`}, or raise --agent-wait`,
        );
      }
      // Not more often: every hello and claim wakes this loop, and each call brings a hello from every idle agent.
      if (members.length < agents && Date.now() - calledAt >= CALL_MS) {
        bus.nc.publish(subjects.calls(bus.prefix), bus.signer.seal({ kind: 'call', runId } satisfies Call));
        calledAt = Date.now();
      }
      await Promise.race([changed(), sleep(CALL_MS)]);
    }
    const broken = members.find((m) => m.done?.error);
    if (broken) {
      stopAll(`agent ${broken.name} could not start`);
      throw fromThreadError(broken.done!.error!);
    }
    // One barrier for all: far enough ahead that the slowest agent hears of it in time.
    const slowest = Math.max(...members.map((m) => m.ready!.roundTripMs));
    startedAt = Date.now() + Math.max(500, 4 * slowest);
    send('start', { kind: 'start', at: startedAt });
    log(`starting ${agents} agent(s) at ${new Date(startedAt).toISOString()}`);
    const budget = config.durationSeconds === undefined ? Infinity : (config.warmupSeconds + config.durationSeconds) * 1000 + DONE_GRACE_MS;
    let stoppedAt: number | undefined;
    for (;;) {
      emitted = emitReady(members, emitted, config, series, onInterval);
      const open = members.filter((m) => !m.done && !m.lost);
      if (open.length === 0) break;
      const now = Date.now();
      for (const m of open) {
        if (now - m.lastHeard <= AGENT_SILENCE_MS) continue;
        const afterSeconds = round(Math.max(0, m.lastHeard - startedAt) / 1000, 1);
        m.lost = { at: new Date(m.lastHeard).toISOString(), afterSeconds, transactionsStreamed: streamed(m) };
        const then = run.onAgentLoss === 'stop' ? 'stopping the run' : 'going on with the rest';
        log(`agent ${m.name} lost: silent since ${m.lost.at}, after ${m.lost.transactionsStreamed} transactions; ${then}`);
        if (run.onAgentLoss === 'stop' && !lossStop) {
          lossStop = new Error(`agent ${m.name} was lost at ${m.lost.at} (no heartbeat for ${AGENT_SILENCE_MS / 1000} s); --on-agent-loss stop`);
          stopAll(`agent ${m.name} was lost`);
          stoppedAt = now;
        }
      }
      if ((signal.aborted || lossStop) && stoppedAt === undefined) stoppedAt = now;
      if (stoppedAt !== undefined && now - stoppedAt > DONE_GRACE_MS) break;
      if (now - startedAt > budget && stoppedAt === undefined) {
        stopAll('the run overran its time');
        stoppedAt = now;
      }
      await Promise.race([changed(), sleep(500)]);
    }
    emitted = emitReady(members, emitted, config, series, onInterval, true);
  } catch (error) {
    stopAll((error as Error).message);
    throw error;
  } finally {
    clearInterval(beats);
    signal.removeEventListener('abort', onAbort);
    await bus.nc.flush().catch(() => undefined);
    for (const s of subscriptions) s.unsubscribe();
  }
  return outcomeOf(members, series, startedAt, run, signal.aborted, lossStop, process.cpuUsage(cpuAtStart));
}

/** Agent i of k gets a contiguous range; the first clients % k get one more. */
export function shardOf(index: number, agents: number, clients: number): { first: number; count: number } {
  const base = Math.floor(clients / agents);
  const extra = clients % agents;
  return { first: index * base + Math.min(index, extra), count: base + (index < extra ? 1 : 0) };
}

/** The plan, less the instance of the agent each copy is addressed to. */
async function planOf(config: EngineConfig, runId: string, agents: number): Promise<Omit<AgentPlan, 'instance'>> {
  return {
    kind: 'plan',
    runId,
    coordinator: `${hostname()}:${process.pid}`,
    agents,
    target: withoutPasswords(config.target),
    workload: config.workload,
    options: config.options,
    files: await planFiles(config.workload, config.options),
    scale: config.scale,
    clients: config.clients,
    jobs: config.jobs,
    durationSeconds: config.durationSeconds,
    transactionsPerClient: config.transactionsPerClient,
    rate: config.rate,
    warmupSeconds: config.warmupSeconds,
    maxTries: config.maxTries,
    abortOnError: config.abortOnError === true,
    seed: config.seed,
    protocol: config.protocol,
    perCommand: config.perCommand,
    latencyLimitMs: config.latencyLimitMs,
    acceptRefusals: config.acceptRefusals,
    sessionStatements: [...(config.sessionStatements ?? [])],
    transactionLog: config.transactionLog,
    // -C: each agent's terminals open a connection per transaction, as the run's would.
    ...(config.connectEach === true ? { connectEach: true } : {}),
    // Read once by the coordinator: every agent's terminals start from the same figures.
    ...(config.runStart ? { runStart: { ...config.runStart } } : {}),
  };
}

function withoutPasswords(target: Target): Target {
  const server = serverTargetOf(target);
  if (!server) return target;
  const { password: _password, passwordFile: _file, fallbacks, ...rest } = server;
  return { ...rest, password: undefined, ...(fallbacks ? { fallbacks: fallbacks.map(({ host, port }) => ({ host, port })) } : {}) };
}

function streamed(m: Member): number {
  let n = 0;
  for (const t of m.ticks) for (const s of t.snapshots) n += s.count;
  return Math.max(n, m.beatTransactions);
}

/**
 * Merges interval n once every agent still running has sent it (a finished agent has sent all it
 * will, a lost one nothing more): its histograms merge exactly and its client CPU adds up.
 */
function emitReady(
  members: readonly Member[],
  emitted: number,
  config: EngineConfig,
  series: SeriesPoint[],
  onInterval: (p: SeriesPoint) => void,
  flush = false,
): number {
  for (let n = emitted + 1; ; n++) {
    const parts = members.map((m) => m.ticks[n - 1]);
    const waiting = members.some((m, i) => parts[i] === undefined && !m.done && !m.lost);
    const present = parts.filter((p): p is Tick => p !== undefined);
    if ((waiting && !flush) || present.length === 0) return n - 1;
    const seconds = Math.max(...present.map((p) => p.point.seconds));
    const cpuPercent = present.reduce((total, p) => total + p.point.clientCpuPercent, 0);
    const phase = present.some((p) => p.point.phase === 'measure') ? 'measure' : 'warmup';
    const t = Math.max(...present.map((p) => p.point.t));
    const point = intervalPoint(
      present.flatMap((p) => p.snapshots),
      t,
      seconds,
      phase,
      cpuPercent,
      config.rate !== undefined,
    );
    const delays = present.map((p) => p.point.eventLoopDelayMs).filter((d) => d !== undefined);
    if (delays.length > 0) point.eventLoopDelayMs = { p99: Math.max(...delays.map((d) => d.p99)), max: Math.max(...delays.map((d) => d.max)) };
    series.push(point);
    onInterval(point);
  }
}

function outcomeOf(
  members: readonly Member[],
  series: SeriesPoint[],
  startedAt: number,
  run: AgentRun,
  aborted: boolean,
  lossStop: Error | undefined,
  coordinatorCpu: NodeJS.CpuUsage,
): DistributedOutcome {
  const outcomes = members.flatMap((m) => (m.done?.outcome ? [{ m, o: m.done.outcome }] : []));
  const errored = members.find((m) => m.done?.error);
  const onCoordinatorClock = (m: Member, at: number): number => at + (m.ready?.clockOffsetMs ?? 0);
  const starts = outcomes.map(({ m, o }) => onCoordinatorClock(m, o.startedAt));
  const measureStarts = outcomes.flatMap(({ m, o }) => (o.measureStartedAt === undefined ? [] : [onCoordinatorClock(m, o.measureStartedAt)]));
  const failureOf = (pick: (o: WireOutcome) => WireOutcome['failure']): Error | undefined => {
    const found = outcomes.map(({ o }) => pick(o)).find((f) => f !== undefined);
    return found && fromThreadError(found);
  };
  const jobFailure = lossStop ?? failureOf((o) => o.jobFailure) ?? (errored ? fromThreadError(errored.done!.error!) : undefined);
  const failure = failureOf((o) => o.failure);
  const offsets = members.filter((m) => m.ready).map((m) => m.ready!.clockOffsetMs);
  const totals = mergeTotals(outcomes.map(({ o }) => o.totals));
  const record: AgentsRecord = {
    count: members.length,
    onAgentLoss: run.onAgentLoss,
    clockSpreadMs: offsets.length > 0 ? round(Math.max(...offsets) - Math.min(...offsets), 1) : 0,
    startSpreadMs: starts.length > 0 ? round(Math.max(...starts) - Math.min(...starts), 1) : null,
    coordinatorCpuUs: coordinatorCpu.user + coordinatorCpu.system,
    members: members.map((m) => {
      const o = m.done?.outcome;
      const all = o ? mergeTotals([o.totals]) : undefined;
      return {
        name: m.name,
        index: m.index,
        terminals: { first: m.first, count: m.count },
        clockOffsetMs: round(m.ready?.clockOffsetMs ?? 0, 1),
        roundTripMs: m.ready?.roundTripMs ?? 0,
        transactions: all ? all.types.reduce((n, t) => n + t.count, 0) : streamed(m),
        failed: all ? all.types.reduce((n, t) => n + t.failed, 0) : 0,
        clientCpuUs: o ? o.clientCpu.userUs + o.clientCpu.systemUs : null,
        ...(m.lost ? { lost: m.lost } : {}),
      };
    }),
  };
  const status =
    aborted || (outcomes.some(({ o }) => o.status === 'interrupted') && !lossStop) ? 'interrupted' : failure || jobFailure ? 'failed' : 'completed';
  return {
    status,
    failure: failure as EngineOutcome['failure'],
    jobFailure,
    lostJobs: members.filter((m) => m.lost).length,
    ...(outcomes.length > 0 ? { openingAt: new Date(Math.min(...outcomes.map(({ m, o }) => onCoordinatorClock(m, o.openingAt ?? o.startedAt)))) } : {}),
    startedAt: new Date(starts.length > 0 ? Math.min(...starts) : startedAt),
    measureStartedAt: measureStarts.length > 0 ? new Date(Math.min(...measureStarts)) : undefined,
    // The agents ran side by side over one window; the longest of their clocks' measurements is the window.
    measuredSeconds: Math.max(0, ...outcomes.map(({ o }) => o.measuredSeconds)),
    series,
    totals,
    clientCpu: {
      userUs: sumOf(outcomes.map(({ o }) => o.clientCpu.userUs)),
      systemUs: sumOf(outcomes.map(({ o }) => o.clientCpu.systemUs)),
      scheduling: commonScheduling(outcomes.map(({ o }) => o.clientCpu.scheduling)),
    },
    clientPeakRssKb: Math.max(0, ...outcomes.map(({ o }) => o.clientPeakRssKb)),
    eventLoopDelayMs: {
      p99: Math.max(0, ...outcomes.map(({ o }) => o.eventLoopDelayMs.p99)),
      max: Math.max(0, ...outcomes.map(({ o }) => o.eventLoopDelayMs.max)),
    },
    agents: record,
  };
}

/** The agents' scheduling where every one ran alike; none where they differ or one could not say. */
function commonScheduling(all: readonly (ClientScheduling | undefined)[]): ClientScheduling | undefined {
  const first = all[0];
  return first !== undefined && all.every((s) => s?.policy === first.policy && s.nice === first.nice) ? first : undefined;
}

function sumOf(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
