import { restoreUnlessUnanswered } from '../session/post-run.js';
import type { OptionValues } from '../config/options.js';
import type { ExperimentFrameValues } from './options.js';
import { dbmsOnThisMachine } from '../config/target.js';
import type { ServerInfo } from '../drivers/driver.js';
import { ServerSettings, parseSettings } from '../session/server-settings.js';
import type { RunResult } from '../result/result.js';
import { logLine, openSession, settingsContext, type Session } from '../session/session.js';
import type { Workload } from '../workloads/workload.js';
import { ResultOutput, STDOUT_PATH, defaultExperimentPath } from '../result/write.js';
import { checkRunOutputs } from '../session/output-paths.js';
import { onInterrupt, type Interrupt } from '../session/interrupt.js';
import type { AgentRun } from '../agents/coordinator.js';
import { experimentHeader, type ExperimentResult } from './experiment-result.js';

/** What an experiment's steps are given: the open session, the settings in force, and the stop signal. */
export interface ExperimentContext<Row> {
  session: Session;
  server: ServerInfo;
  settings: ServerSettings;
  signal: AbortSignal;
  /** A second Ctrl-C: the step in flight waits for nothing more (session/interrupt.ts). */
  hurry?: AbortSignal;
  /** The server runs where this machine's RAM is its RAM (SQLite always does). */
  serverOnThisMachine: boolean;
  /**
   * Adds one row of the table with the run it came from (none for a step that runs no load, e.g.
   * dead-rows' VACUUM; no row for a run whose row needs the server's answers after it, when the
   * server stopped answering); kept even when a later step fails.
   */
  record(row: Row | undefined, run?: RunResult): void;
  /** Adds a line to the file's notes: what the experiment did beside its steps. */
  note(text: string): void;
  /** "experiment NAME": the command each step's run records its argv under. */
  verb: string;
  /** --agents: every measured step runs its terminals on the agents (experiments/measure.ts passes it on). */
  agents?: AgentRun;
}

/**
 * The frame every experiment shares: opens the session, applies --set (and puts it back however
 * the experiment ends), runs the steps, and writes one file with what was measured, also when it
 * was interrupted (Ctrl-C: exit 130) or failed part way (the error is then thrown on). With
 * --agents (`agents`, its bus already open) the bus is closed however the experiment ends.
 */
export async function runExperiment<Row>(
  name: string,
  argv: readonly string[],
  values: ExperimentFrameValues,
  workload: Workload,
  /** The workload's own options, which openSession checks against the DBMS. */
  workloadOptions: OptionValues,
  steps: (ctx: ExperimentContext<Row>) => Promise<void>,
  render: (result: ExperimentResult<Row>, file: string | undefined) => string,
  agents?: AgentRun,
): Promise<number> {
  try {
    return await experimentOn(name, argv, values, workload, workloadOptions, steps, render, agents);
  } finally {
    await agents?.bus.nc.drain().catch(() => undefined);
  }
}

async function experimentOn<Row>(
  name: string,
  argv: readonly string[],
  values: ExperimentFrameValues,
  workload: Workload,
  workloadOptions: OptionValues,
  steps: (ctx: ExperimentContext<Row>) => Promise<void>,
  render: (result: ExperimentResult<Row>, file: string | undefined) => string,
  agents: AgentRun | undefined,
): Promise<number> {
  const asked = parseSettings(values.set);
  checkRunOutputs(values);
  const session = await openSession(values, workload, workloadOptions);
  let settings: ServerSettings | undefined;
  let interrupt: Interrupt | undefined;
  try {
    settings = await ServerSettings.apply(session.driver, session.conn, asked, logLine, settingsContext(values, session.target, `experiment ${name}`));
    const server = await session.driver.serverInfo(session.conn);
    const serverOnThisMachine = dbmsOnThisMachine(session.target);
    const header = experimentHeader(name, argv, session.url, server, settings.record(), serverOnThisMachine);
    const rows: Row[] = [];
    const runs: RunResult[] = [];
    const notes: string[] = [];
    const applied = settings;
    interrupt = onInterrupt('stopping this step, putting settings back and writing what was measured', () => applied.unrestored());
    const signal = interrupt.signal;
    let failure: unknown;
    try {
      await steps({
        session,
        server,
        settings,
        signal,
        hurry: interrupt.hurry,
        serverOnThisMachine,
        verb: `experiment ${name}`,
        record: (row, run) => void (row && rows.push(row), run && runs.push(run)),
        note: (text) => void notes.push(text),
        ...(agents ? { agents } : {}),
      });
    } catch (error) {
      failure = error;
    }
    await restoreUnlessUnanswered(session, settings);
    const status =
      signal.aborted || runs.some((r) => r.status === 'interrupted')
        ? 'interrupted'
        : failure !== undefined || runs.some((r) => r.status === 'failed')
          ? 'failed'
          : 'completed';
    const result: ExperimentResult<Row> = {
      ...header,
      status,
      endedAt: new Date().toISOString(),
      serverSettings: settings.record(),
      rows,
      runs,
      ...(notes.length > 0 ? { notes } : {}),
    };
    if (status === 'interrupted') result.statusReason = 'interrupted by a signal';
    else if (failure !== undefined) result.statusReason = (failure as Error).message;
    else if (status === 'failed') result.statusReason = runs.find((r) => r.status === 'failed')?.statusReason ?? 'a step failed';
    const output = new ResultOutput(values.out ?? defaultExperimentPath(name, server.dbms, header.startedAt));
    let unwritten: string | undefined;
    if (rows.length > 0 || failure === undefined) {
      const human = output.asked === STDOUT_PATH ? process.stderr : process.stdout;
      // The table first: whatever happens to the file, the figures have been printed.
      human.write(`${render(result, undefined)}\n`);
      await output.save(result, true);
      unwritten = output.unwrittenLine('experiment');
      if (unwritten) process.stderr.write(`headroom: ${unwritten}\n`);
      else human.write(`result: ${output.file === STDOUT_PATH ? 'stdout' : output.file}\n`);
    }
    if (failure !== undefined) throw failure;
    const code = status === 'interrupted' ? 130 : status === 'failed' ? 1 : 0;
    return unwritten !== undefined && code === 0 ? 1 : code;
  } finally {
    interrupt?.dispose();
    if (settings) await restoreUnlessUnanswered(session, settings);
    await session.close();
  }
}
