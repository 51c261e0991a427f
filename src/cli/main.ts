import { formatOptionHelp, type OptionSpec } from '../config/options.js';
import { DbError } from '../drivers/errors.js';
import { InterruptedError, StalledError, UserError } from '../errors.js';
import { TOOL_VERSION } from '../result/version.js';
import { fileErrorReason } from '../common/file-errors.js';
import { DEFAULT_DB } from '../config/target-types.js';
import { redact } from '../config/redact.js';
import type { Workload } from '../workloads/workload.js';
import { isModulePath } from '../module/module-path.js';
import { EXPERIMENT_NAMES } from './experiment-names.js';
import { preloadModules } from './workload-modules.js';

/** What a verb's module gives: its options (for --help) and what it does. */
interface VerbModule {
  options: readonly OptionSpec[];
  action(argv: readonly string[]): Promise<number>;
}

interface Verb {
  summary: string;
  usage: string;
  /**
   * Loads the verb's module on use: `headroom --version` and `--help` load none of the verbs, and
   * a run none of the report, plan and experiment code (every module loaded costs start-up CPU).
   */
  load(): Promise<VerbModule>;
  /** The verb prints its own --help (experiment: each experiment has its options). */
  ownHelp?: boolean;
}

const VERBS: Record<string, Verb> = {
  run: {
    summary: 'load the data if missing, then measure (the default verb)',
    usage: 'headroom run [WORKLOAD] [options]',
    load: async () => import('./run.js').then((m) => ({ options: m.RUN_OPTIONS, action: m.runCommand })),
  },
  replay: {
    summary: 'play a captured load back onto a copy of the database, at its recorded speed or faster (--until finds the headroom factor)',
    usage: 'headroom replay CAPTURE.json --db URL [--speed X | --until CONDITIONS] [options]',
    load: async () => import('./replay.js').then((m) => ({ options: m.REPLAY_OPTIONS, action: m.replayCommand })),
  },
  init: {
    summary: "create the workload's schema and load its data (drops what is there; kv appends to a smaller table)",
    usage: 'headroom init [WORKLOAD] [options]',
    load: async () => import('./data-verbs.js').then((m) => ({ options: m.INIT_OPTIONS, action: m.initCommand })),
  },
  check: {
    summary: "verify the workload's data invariants",
    usage: 'headroom check [WORKLOAD] [options]',
    load: async () => import('./data-verbs.js').then((m) => ({ options: m.CHECK_OPTIONS, action: m.checkCommand })),
  },
  drop: {
    summary: "drop the workload's tables",
    usage: 'headroom drop [WORKLOAD] [options]',
    load: async () => import('./data-verbs.js').then((m) => ({ options: m.DROP_OPTIONS, action: m.dropCommand })),
  },
  plan: {
    summary: "headroom of a run over a business's demand (any workload: --events-per-day or a module's demand; chain: bank or shop), and the machines it needs",
    usage: 'headroom plan RESULT.json [options]',
    load: async () => import('./plan.js').then((m) => ({ options: m.PLAN_OPTIONS, action: m.planCommand })),
  },
  report: {
    summary: 'one self-contained HTML page of one or more result files; CSV and Markdown on request',
    usage: 'headroom report RESULT.json... [-o report.html] [--csv FILE] [--markdown] [--normalise REFERENCE:YOURS]',
    load: async () => import('./report.js').then((m) => ({ options: m.REPORT_OPTIONS, action: m.reportCommand })),
  },
  compare: {
    summary: 'result files side by side in the terminal, with ratios to the first',
    usage: 'headroom compare RESULT.json RESULT.json... | headroom compare --normalise REFERENCE:YOURS [RESULT.json...]',
    load: async () => import('./report.js').then((m) => ({ options: m.COMPARE_OPTIONS, action: m.compareCommand })),
  },
  experiment: {
    summary: `a named study re-run: ${Object.entries(EXPERIMENT_NAMES)
      .map(([name, what]) => `${name} (${what})`)
      .join(', ')}`,
    usage: 'headroom experiment NAME [options]',
    load: async () => import('./experiment.js').then((m) => ({ options: [], action: m.experimentCommand })),
    ownHelp: true,
  },
  capture: {
    summary:
      "record a real load from the server's own log (PostgreSQL stderr or csvlog, MariaDB's general log) into a capture file, and optionally a workload module of it",
    usage: 'headroom capture LOG... [-o capture.json] [--module FILE.ts] | headroom capture --db mariadb://... --from-table',
    load: async () => import('./capture.js').then((m) => ({ options: m.CAPTURE_OPTIONS, action: m.captureCommand })),
  },
  'restore-settings': {
    summary: 'put back the server-wide settings a killed headroom command left changed (every command against a server does this first)',
    usage: 'headroom restore-settings --db URL',
    load: async () => import('./restore-settings.js').then((m) => ({ options: m.RESTORE_SETTINGS_OPTIONS, action: m.restoreSettingsCommand })),
  },
  agent: {
    summary: 'wait for signed run plans over NATS and run their share of the terminals (headroom run --agents K)',
    usage: 'headroom agent --nats URL --trust SECRET [--name NAME]',
    load: async () => import('./agent.js').then((m) => ({ options: m.AGENT_OPTIONS, action: m.agentCommand })),
  },
  k8s: {
    summary: 'print a Kubernetes Indexed Job of K agents (headroom k8s manifest --agents K --nats URL)',
    usage: 'headroom k8s manifest --agents K --nats URL [options]',
    load: async () => import('./k8s.js').then((m) => ({ options: m.K8S_OPTIONS, action: m.k8sCommand })),
  },
  new: {
    summary: 'write a commented starter workload module: headroom new workload NAME',
    usage: 'headroom new workload NAME [-o FILE]',
    load: async () => import('./new-workload.js').then((m) => ({ options: m.NEW_OPTIONS, action: m.newCommand })),
  },
  pgbench: {
    summary: "pgbench's own command line (pgbench [options] [dbname]), run by headroom, with pgbench's output and exit codes",
    usage: 'headroom pgbench [pgbench options] [dbname | URL] [--headroom-summary] [--headroom-out FILE]',
    load: async () => import('./pgbench/command.js').then((m) => ({ options: [], action: (argv: readonly string[]) => m.pgbenchCommand(argv) })),
    ownHelp: true,
  },
  list: {
    summary: 'workloads and drivers, with their options and defaults',
    usage: 'headroom list',
    load: async () => import('./list.js').then((m) => ({ options: [], action: async () => (process.stdout.write(`${await m.listText()}\n`), 0) })),
  },
};

const VERB_WIDTH = Math.max(...Object.keys(VERBS).map((name) => name.length)) + 2;

function mainHelp(): string {
  return [
    `headroom ${TOOL_VERSION}: how many transactions per second this machine and DBMS carry`,
    '',
    'usage: headroom VERB [WORKLOAD] [options]',
    '',
    ...Object.entries(VERBS).map(([name, v]) => `  ${name.padEnd(VERB_WIDTH)}${v.summary}`),
    '',
    `With no --db, headroom uses ${DEFAULT_DB} (embedded SQLite, no server needed).`,
    "headroom VERB --help shows the options of a verb; headroom list shows each workload's own.",
  ].join('\n');
}

function verbHelp(verb: Verb, options: readonly OptionSpec[], modules: readonly Workload[] = []): string {
  const own = modules.flatMap((m) => (m.options.length > 0 ? ['', `options of ${m.name}:`, formatOptionHelp(m.options)] : []));
  const pointer = verb.usage.includes('WORKLOAD') && modules.length === 0 ? ['', 'workload options: see headroom list'] : [];
  return [`usage: ${verb.usage}`, '', verb.summary, ...(options.length > 0 ? ['', 'options:', formatOptionHelp(options)] : []), ...own, ...pointer].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-V') return (process.stdout.write(`${TOOL_VERSION}\n`), 0);
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? rest[0] : undefined;
    const verb = topic === undefined ? undefined : VERBS[topic];
    if (topic !== undefined && !verb) throw new UserError(`unknown verb "${topic}"`, `verbs: ${Object.keys(VERBS).join(', ')}`);
    process.stdout.write(`${verb ? verbHelp(verb, (await verb.load()).options) : mainHelp()}\n`);
    return 0;
  }
  // `headroom -c 4` and `headroom tpcb` mean `headroom run ...`, as `npx headroom` alone does.
  // The workload registry (every workload's options) is loaded only when the word is no verb.
  const builtIn = async (): Promise<boolean> => !Object.hasOwn(VERBS, first) && (await import('../workloads/registry.js')).isBuiltInWorkload(first);
  const name = first.startsWith('-') || isModulePath(first) || (await builtIn()) ? 'run' : first;
  const verb = VERBS[name];
  if (!verb) throw new UserError(`unknown verb "${first}"`, `verbs: ${Object.keys(VERBS).join(', ')} (headroom --help)`);
  const verbArgs = name === first ? rest : argv;
  const loaded = await verb.load();
  // Workload modules named on the line are loaded before the verb parses it: their options are its options.
  const modules = await preloadModules(verbArgs, loaded.options);
  if (!verb.ownHelp && (verbArgs.includes('--help') || verbArgs.includes('-h')))
    return (process.stdout.write(`${verbHelp(verb, loaded.options, modules)}\n`), 0);
  return loaded.action(verbArgs);
}

/**
 * The whole command line: runs a verb and turns what it throws into the exit code. A user's
 * mistake or a DBMS's refusal is one line with its hint (exit 2); anything else is a bug (exit 1).
 */
export async function headroom(argv: string[], errorOutput: (text: string) => void = (text) => void process.stderr.write(text)): Promise<number> {
  // A message may quote what the user typed (a stray URL, a connection string), a stack the message: no password is printed.
  const writeError = (text: string): void => errorOutput(redact(text));
  watchStdout();
  const code = await verb(argv, writeError);
  // A failed write to stdout is told by an event after the write: let it come.
  await new Promise((resolve) => setImmediate(resolve));
  // stdout that failed (redirected to a full disk) is told once, in one line, and the exit code says so.
  const failed = stdoutFailure;
  if (failed === undefined || code !== 0) return code;
  writeError(`headroom: cannot write to stdout: ${fileErrorReason(failed)}\n`);
  return 1;
}

let stdoutFailure: Error | undefined;
let stdoutWatched = false;

/** Without a listener, a failed write to stdout (ENOSPC) ends the process with a stack trace; a closed pipe (EPIPE) is no failure. */
function watchStdout(): void {
  if (stdoutWatched) return;
  stdoutWatched = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') stdoutFailure ??= error;
  });
}

async function verb(argv: string[], writeError: (text: string) => void): Promise<number> {
  const verbose = argv.includes('--verbose');
  try {
    return await main(argv);
  } catch (error) {
    if (error instanceof UserError || error instanceof DbError) {
      writeError(`headroom: ${error.message}${error.hint ? ` (${error.hint})` : ''}\n`);
      if (verbose) writeError(`${error.stack ?? ''}\n${error.cause instanceof Error ? `cause: ${error.cause.stack}\n` : ''}`);
      return error instanceof InterruptedError ? 130 : error instanceof StalledError ? 1 : 2;
    }
    writeError(`headroom: unexpected error: ${error instanceof Error ? error.message : String(error)}${verbose ? '' : ' (--verbose shows the stack)'}\n`);
    if (verbose && error instanceof Error) writeError(`${error.stack}\n`);
    return 1;
  }
}
