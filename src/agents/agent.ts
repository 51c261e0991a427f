import { randomBytes } from 'node:crypto';
import type { Msg, Subscription } from 'nats';
import { describeTarget, resolveTarget, serverTargetOf, type Target } from '../config/target.js';
import { runEngine } from '../engine/engine.js';
import { toThreadError } from '../engine/thread-error.js';
import { wireSnapshot } from '../metrics/recorder.js';
import { subjects, type Bus, type RunSubject } from './bus.js';
import type { AgentPlan, Beat, Call, Claim, ClaimReply, Done, Hello, Ready, Shard, Start, Stop, Tick } from './messages.js';
import { fileRefusal } from './plan-files.js';
import { toWireOutcome } from './wire-outcome.js';

/** Without the coordinator's heartbeat this long, an agent stops its terminals: nothing is left running for nobody. */
export const COORDINATOR_SILENCE_MS = 5_000;
const BEAT_MS = 1_000;
/** Time requests for the clock offset; the fastest round trip gives the estimate. */
const CLOCK_SAMPLES = 5;

export interface AgentOptions {
  name: string;
  log: (line: string) => void;
  /** --once: serve one run, then return (a Kubernetes Job's pod then completes). */
  once: boolean;
  /** Ends the agent (SIGTERM): a run in progress is stopped and its outcome still sent. */
  signal: AbortSignal;
}

/**
 * `headroom agent`: answers the coordinator's calls while idle, takes the signed plan addressed to
 * this process, claims a shard, runs it at the barrier, streams what it measures.
 */
export async function serveAgent(bus: Bus, options: AgentOptions): Promise<void> {
  const { log } = options;
  // Drawn anew by every process: a plan addressed to an earlier run of this agent names another.
  const self: Self = { instance: randomBytes(8).toString('hex'), startedAt: Date.now() };
  let busy = false;
  let served = 0;
  const idle = new Set<() => void>();
  const available = (): boolean => !busy && !options.signal.aborted && !(options.once && served > 0);
  const calls = bus.nc.subscribe(subjects.calls(bus.prefix), {
    callback: (error, message) => {
      if (error) return;
      let call: Call;
      try {
        call = bus.signer.open<Call>(message.data);
        if (call.kind !== 'call') throw new Error(`a ${String(call.kind)} message where a call was expected`);
      } catch (refused) {
        log(`refused a call: ${(refused as Error).message}`);
        return;
      }
      if (!available()) return;
      const hello: Hello = { kind: 'hello', agent: options.name, instance: self.instance };
      bus.nc.publish(subjects.run(bus.prefix, call.runId, 'hello'), bus.signer.seal(hello));
    },
  });
  const plans = bus.nc.subscribe(subjects.plans(bus.prefix, self.instance));
  // A subscription reaches the server some time after subscribe() returns: only once the server has
  // answered a ping sent after it is the line below true, and a plan sent on seeing it not lost.
  await bus.nc.flush();
  log(`agent ${options.name} (instance ${self.instance}) waiting for plans on ${subjects.plans(bus.prefix, self.instance)}`);
  const finished = new Promise<void>((resolve) => {
    options.signal.addEventListener('abort', () => resolve(), { once: true });
    idle.add(() => {
      if (options.once && served > 0) resolve();
    });
    void bus.nc.closed().then(() => resolve());
  });
  void (async () => {
    for await (const message of plans) {
      let plan: AgentPlan;
      try {
        const opened = bus.signer.openSent<AgentPlan>(message.data);
        plan = opened.body;
        if (plan.kind !== 'plan') throw new Error(`a ${String(plan.kind)} message where a plan was expected`);
        if (plan.instance !== self.instance) throw new Error(misaddressed(plan, opened.sentAt, self));
      } catch (error) {
        log(`refused a plan: ${(error as Error).message}`);
        continue;
      }
      if (!available()) continue;
      busy = true;
      try {
        if (await runPlan(bus, plan, options, self)) served++;
      } catch (error) {
        log(`run ${plan.runId}: ${(error as Error).message}`);
      } finally {
        busy = false;
        for (const check of idle) check();
      }
    }
  })();
  await finished;
  calls.unsubscribe();
  plans.unsubscribe();
}

/** This agent process: its instance, and when it started. */
interface Self {
  instance: string;
  startedAt: number;
}

/** Why a plan for another instance is refused: most likely a replay of one sent before this process started. */
function misaddressed(plan: AgentPlan, sentAt: number, self: Self): string {
  const to = typeof plan.instance === 'string' ? `instance ${plan.instance}` : 'no instance';
  const why = sentAt < self.startedAt ? 'sent before this agent started, to an earlier run of it (a replay)' : 'meant for another agent';
  return `addressed to ${to}, not to this agent's (instance ${self.instance}, started ${new Date(self.startedAt).toISOString()}): ${why}`;
}

/** True when the agent took part in the run (claimed a shard). */
async function runPlan(bus: Bus, plan: AgentPlan, options: AgentOptions, self: Self): Promise<boolean> {
  const { log, name } = options;
  const refusal = await fileRefusal(plan);
  if (refusal) {
    log(`refused plan ${plan.runId}: ${refusal}`);
    return false;
  }
  const subject = (what: RunSubject): string => subjects.run(bus.prefix, plan.runId, what);
  const send = (what: RunSubject, body: unknown): void => bus.nc.publish(subject(what), bus.signer.seal(body));
  let reply: ClaimReply;
  try {
    const claim: Claim = { kind: 'claim', agent: name, instance: self.instance };
    const answer = await bus.nc.request(subject('claim'), bus.signer.seal(claim), { timeout: 3000 });
    reply = bus.signer.open<ClaimReply>(answer.data);
  } catch (error) {
    log(`no shard of run ${plan.runId}: ${(error as Error).message}`);
    return false;
  }
  if (reply.kind !== 'shard') return false;
  if (reply.instance !== self.instance) {
    log(`no shard of run ${plan.runId}: the answer to the claim was for instance ${reply.instance}, not this agent's`);
    return false;
  }
  const shard: Shard = reply;
  log(`run ${plan.runId}: terminals ${shard.first}..${shard.first + shard.count - 1} of ${plan.clients} (${plan.workload} on ${describeTarget(plan.target)})`);

  const abort = new AbortController();
  const stopOn = (why: string): void => {
    if (abort.signal.aborted) return;
    log(`run ${plan.runId}: stopping, ${why}`);
    abort.abort();
  };
  const onTerm = (): void => stopOn('the agent is shutting down');
  options.signal.addEventListener('abort', onTerm, { once: true });
  let lastHeard = Date.now();
  const subscriptions: Subscription[] = [];
  const listen = (what: RunSubject, handle: (message: Msg) => void): void => {
    subscriptions.push(bus.nc.subscribe(subject(what), { callback: (error, message) => (error ? undefined : handle(message)) }));
  };
  listen('coordinator', (message) => {
    try {
      bus.signer.open(message.data);
      lastHeard = Date.now();
    } catch (error) {
      log(`refused a heartbeat: ${(error as Error).message}`);
    }
  });
  listen('stop', (message) => {
    try {
      stopOn(`the coordinator said: ${bus.signer.open<Stop>(message.data).reason}`);
    } catch (error) {
      log(`refused a stop: ${(error as Error).message}`);
    }
  });
  let startAt: ((start: Start) => void) | undefined;
  const started = new Promise<Start>((resolve) => (startAt = resolve));
  listen('start', (message) => {
    try {
      startAt?.(bus.signer.open<Start>(message.data));
    } catch (error) {
      log(`refused a start: ${(error as Error).message}`);
    }
  });
  let transactions = 0;
  const beats = setInterval(() => {
    if (Date.now() - lastHeard > COORDINATOR_SILENCE_MS) stopOn(`no heartbeat from the coordinator for ${COORDINATOR_SILENCE_MS / 1000} s`);
    send('beat', { kind: 'beat', index: shard.index, transactions } satisfies Beat);
  }, BEAT_MS);
  try {
    const clock = await measureClock(bus, subject('time'));
    let ticks = 0;
    const outcome = await runEngine(
      {
        target: withOwnPassword(plan.target),
        workload: plan.workload,
        options: plan.options,
        scale: plan.scale,
        clients: shard.count,
        jobs: plan.jobs,
        durationSeconds: plan.durationSeconds,
        transactionsPerClient: plan.transactionsPerClient,
        // This agent's terminals' share: the engine divides it among its jobs, each job's terminals sharing one arrival stream.
        rate: plan.rate === undefined ? undefined : (plan.rate * shard.count) / plan.clients,
        warmupSeconds: plan.warmupSeconds,
        maxTries: plan.maxTries,
        abortOnError: plan.abortOnError,
        seed: plan.seed,
        journal: undefined,
        acceptRefusals: plan.acceptRefusals,
        protocol: plan.protocol,
        perCommand: plan.perCommand,
        sessionStatements: plan.sessionStatements,
        latencyLimitMs: plan.latencyLimitMs,
        transactionLog: plan.transactionLog && { ...plan.transactionLog, pid: process.pid },
        routing: undefined,
        terminalIds: { first: shard.first, of: plan.clients },
        runStart: plan.runStart,
        ...(plan.connectEach === true ? { connectEach: true } : {}),
        beforeStart: async () => {
          send('ready', { kind: 'ready', agent: name, index: shard.index, clockOffsetMs: clock.offsetMs, roundTripMs: clock.roundTripMs } satisfies Ready);
          const aborted = new Promise<undefined>((resolve) => abort.signal.addEventListener('abort', () => resolve(undefined), { once: true }));
          const start = abort.signal.aborted ? undefined : await Promise.race([started, aborted]);
          if (!start) throw new Error('stopped before the start');
          // The barrier is on the coordinator's clock; this agent's clock reads it as at - offset.
          const wait = start.at - clock.offsetMs - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        },
        onSnapshots: (snapshots, point) => {
          for (const s of snapshots) transactions += s.count;
          send('tick', { kind: 'tick', index: shard.index, tick: ++ticks, snapshots: snapshots.map(wireSnapshot), point } satisfies Tick);
        },
      },
      abort.signal,
      () => undefined,
    );
    send('done', { kind: 'done', index: shard.index, outcome: toWireOutcome(outcome) } satisfies Done);
    log(`run ${plan.runId}: ${outcome.status}, ${outcome.totals.types.reduce((n, t) => n + t.count, 0)} transactions`);
  } catch (error) {
    send('done', { kind: 'done', index: shard.index, error: toThreadError(error) } satisfies Done);
    log(`run ${plan.runId}: failed: ${(error as Error).message}`);
  } finally {
    clearInterval(beats);
    options.signal.removeEventListener('abort', onTerm);
    await bus.nc.flush().catch(() => undefined);
    for (const s of subscriptions) s.unsubscribe();
  }
  return true;
}

/** Passwords never travel on the bus: this agent's environment or password file gives them, as for a local run. */
function withOwnPassword(target: Target): Target {
  // An embedded DBMS's target is a file: no password to find.
  const server = serverTargetOf(target);
  if (!server) return target;
  const own = serverTargetOf(resolveTarget(describeTarget(server)));
  if (!own) return target;
  return {
    ...server,
    password: own.password,
    ...(own.passwordFile ? { passwordFile: own.passwordFile } : {}),
    ...(own.fallbacks ? { fallbacks: own.fallbacks } : {}),
  };
}

/** The coordinator's clock minus this one's, from the request/reply pair with the shortest round trip (NTP's estimate). */
async function measureClock(bus: Bus, subject: string): Promise<{ offsetMs: number; roundTripMs: number }> {
  let best = { offsetMs: 0, roundTripMs: Infinity };
  for (let i = 0; i < CLOCK_SAMPLES; i++) {
    const sent = Date.now();
    const reply = await bus.nc.request(subject, bus.signer.seal({ kind: 'time' }), { timeout: 3000 });
    const received = Date.now();
    const { now } = bus.signer.open<{ now: number }>(reply.data);
    if (received - sent < best.roundTripMs) best = { offsetMs: now - (sent + received) / 2, roundTripMs: received - sent };
  }
  return best;
}
