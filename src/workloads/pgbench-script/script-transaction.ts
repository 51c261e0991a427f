import type { Connection, LiteralStatement, Row, SqlValue, Statement } from '../../drivers/driver.js';
import type { LiteralValue } from '../../drivers/literals.js';
import { UserError } from '../../errors.js';
import type { ScriptTimings } from '../../metrics/command-timings.js';
import { DbError } from '../../drivers/errors.js';
import type { TerminalContext, TransactionRunner, TransactionType } from '../workload.js';
import { columnNames } from './columns.js';
import { debugConnection, debugLine, debugProgram } from './debug.js';
import type { Frame } from './frame.js';
import { VARIABLE_NAME, type Program, type Step } from './program.js';
import { PgRandom, clientRandom, clientSeeds } from './pg-random.js';
import { runSetShell, runShell, ShellError } from './shell.js';
import { simpleQueryText, type SqlCommand } from './sql-command.js';
import { Double, ScriptError, truth, valueText, type Value } from './value.js';

type SqlStep = Extract<Step, { op: 'sql' }>;

/** pgbench's MAX_ARGS: the parameters of one statement under its extended and prepared modes. */
const MAX_PARAMETERS = 255;

let pipelineNoticeShown = false;
const RESOLVED = Promise.resolve();

/**
 * One script as one transaction type: each execution of the script is one transaction attempt
 * for the engine (which retries it on serialization failures and deadlocks with the same random
 * values). The client's variables live as long as its connection, as pgbench's do.
 */
/** index: the script's place in the mix, 0 for the first, as pgbench numbers scripts in its debug() lines. */
/** debug: pgbench -d's lines for each client (debug.ts); the interpreter runs the same steps either way. */
export function scriptTransaction(program: Program, weight: number, defines: ReadonlyMap<string, string>, index = 0, debug = false): TransactionType {
  return {
    name: program.name,
    weight,
    readOnly: program.readOnly,
    random: ({ seed, terminal, terminals }) => clientRandom(seed, terminal, terminals),
    checkProtocol(protocol) {
      if (protocol === 'simple') return;
      const compound = program.steps.find((s) => s.op === 'sql' && s.sql.compound);
      if (compound !== undefined) {
        // One request of several queries exists only in the simple protocol: a parsed statement is one query.
        throw new UserError(
          `${program.name}: "${compound.label}" joins queries with \\;, which only --protocol simple sends (pgbench -M simple)`,
          'use --protocol simple, or split the command at each \\;',
        );
      }
      // pgbench (-M extended or prepared) numbers each :variable of a statement as a parameter, up to 255; its words say "arguments".
      const step = program.steps.find((s) => s.op === 'sql' && s.sql.slots.length > MAX_PARAMETERS);
      if (step === undefined) return;
      const label = step.label.length > 60 ? `${step.label.slice(0, 60)}...` : step.label;
      throw new UserError(
        `${program.name}: statement has too many arguments (maximum is ${MAX_PARAMETERS}) for --protocol ${protocol}: ${label}`,
        'use --protocol simple (pgbench -M simple), or fewer :variables in the statement',
      );
    },
    async prepare(conn, terminal) {
      if (conn.queryResults === undefined && program.steps.some((s) => s.op === 'sql' && s.sql.compound)) {
        const where = 'runs only on PostgreSQL, without --journal and --route';
        throw new UserError(`${program.name}: \\; (several queries sent in one request) ${where}`, 'split the command at each \\;');
      }
      const frame = newFrame(program, terminal, defines, index);
      if (debug) return debugRunner(program, conn, terminal, frame, index);
      const run = new ScriptRun(program, conn, terminal, frame);
      const runner: TransactionRunner = () => run.execute();
      runner.abortText = (error) => run.abortText(error, index);
      runner.errorPlace = () => run.errorPlace(index);
      runner.retrying = () => run.retrying();
      return runner;
    },
  };
}

function debugRunner(program: Program, conn: Connection, terminal: TerminalContext, frame: Frame, index: number): TransactionRunner {
  const log = debugLine(terminal.terminal);
  const run = new ScriptRun(debugProgram(program, log), debugConnection(conn, log), terminal, frame);
  const runner: TransactionRunner = () => (log(`executing script "${program.name}"`), run.execute());
  runner.abortText = (error) => run.abortText(error, index);
  runner.errorPlace = () => run.errorPlace(index);
  runner.retrying = () => run.retrying();
  return runner;
}

function newFrame(program: Program, terminal: TerminalContext, defines: ReadonlyMap<string, string>, index: number): Frame {
  const { variables } = program;
  const vars: (Value | undefined)[] = [];
  // pgbench draws default_seed from its base sequence after the clients' generators.
  const { defaultSeed } = clientSeeds(terminal.seed, terminal.terminals);
  // pgbench's automatic variables; -D may override them (as pgbench lets -D set scale).
  vars[variables.slot('scale')] = terminal.scale;
  vars[variables.slot('client_id')] = terminal.terminal;
  vars[variables.slot('random_seed')] = terminal.seed;
  vars[variables.slot('default_seed')] = Number.isSafeInteger(Number(defaultSeed)) ? Number(defaultSeed) : defaultSeed;
  for (const [name, value] of defines) vars[variables.slot(name)] = value;
  // The terminal's stream is pgbench's when it came from this type's random(); a hand-made context gets its own.
  const random = terminal.random instanceof PgRandom ? terminal.random : clientRandom(terminal.seed, terminal.terminal, terminal.terminals);
  // pgbench's own line: debug(script=N,command=M), both as pgbench numbers them (command from 1).
  const frame: Frame = { vars, random, command: 0, debug: (line) => process.stderr.write(`debug(script=${index},command=${frame.command + 1}): ${line}\n`) };
  return frame;
}

/** \sleep's duration; an error in it is named as pgbench names it ("sleep: undefined variable ..."). */
function sleepAmount(amount: (frame: Frame) => Value, frame: Frame): Value {
  try {
    return amount(frame);
  } catch (error) {
    if (error instanceof ScriptError) throw new ScriptError(`sleep: ${error.message}`);
    throw error;
  }
}

/** A result cell as a script value. */
function cellValue(cell: NonNullable<Row[number]>): Value {
  if (typeof cell === 'number') return Number.isInteger(cell) ? cell : new Double(cell);
  return typeof cell === 'bigint' || typeof cell === 'boolean' ? cell : String(cell);
}

/** A value as it is bound to an SQL parameter. */
function bindable(v: Value): SqlValue {
  return v instanceof Double ? v.v : v;
}

class ScriptRun {
  private readonly statements: (Statement | undefined)[];
  /** Under the simple protocol, each SQL step's statement where the driver builds its requests itself. */
  private readonly literals: (LiteralStatement | undefined)[] = [];
  private readonly params: SqlValue[][];
  private readonly pipelining: boolean;
  private readonly storeSlots: ((number | undefined)[] | undefined)[] = [];
  private readonly timings: ScriptTimings | undefined;

  constructor(
    private readonly program: Program,
    private readonly conn: Connection,
    private readonly terminal: TerminalContext,
    private readonly frame: Frame,
  ) {
    this.statements = program.steps.map(() => undefined);
    this.params = program.steps.map((s) => (s.op === 'sql' ? new Array<SqlValue>(s.sql.slots.length) : []));
    // A driver that queues requests on one socket makes a pipeline real; the others run its
    // statements one after another.
    this.pipelining = terminal.pipelines === true;
    this.timings = terminal.commandTimings?.forScript(program.name, program.commandLabels);
    if (program.usesPipeline && !this.pipelining && !pipelineNoticeShown) {
      pipelineNoticeShown = true;
      process.stderr.write(
        `note: ${terminal.dbms} has no pipelining in headroom; the statements between \\startpipeline and \\endpipeline run one after another\n`,
      );
    }
  }

  /** Where the script run in progress stands (one at a time per terminal); reset by each execution. */
  private pc = 0;
  private inTransaction = false;
  private pipeline: Promise<void>[] | undefined;

  execute(): Promise<void> {
    const { timings } = this;
    if (timings === undefined) {
      this.pc = 0;
      this.inTransaction = false;
      this.pipeline = undefined;
      let wait: Promise<unknown> | undefined;
      try {
        wait = this.advance(undefined);
      } catch (error) {
        return Promise.reject(error);
      }
      if (wait === undefined) return this.ended();
      // The script's last command (select-only's one SELECT, tpcb-like's END): its own promise is
      // the transaction's, without an async frame of ours around it.
      if (this.pc === this.program.steps.length && !this.inTransaction) return wait as Promise<void>;
      return this.rest(wait);
    }
    const state = { command: -1, startedAt: 0 };
    return this.steps(state).catch((error: unknown) => {
      this.failedCommand = state.command;
      if (state.command >= 0) timings.fail(state.command);
      throw error;
    });
  }

  /** The command the last execution failed in (-r), -1 for none. */
  private failedCommand = -1;

  retrying(): void {
    if (this.failedCommand >= 0) this.timings?.retried(this.failedCommand);
    this.failedCommand = -1;
  }

  /**
   * Runs the steps; with `timed` (-r) each command's time goes to the job's per-command figures.
   * The loop only waits; advance() does the work in between, so that the state kept across each
   * await (and allocated for every execution) stays small.
   */
  private async steps(timed: { command: number; startedAt: number } | undefined): Promise<void> {
    this.pc = 0;
    this.inTransaction = false;
    this.pipeline = undefined;
    for (let wait = this.advance(timed); wait !== undefined; wait = this.advance(timed)) await wait;
    if (timed && timed.command >= 0) {
      this.timings!.record(timed.command, (performance.now() - timed.startedAt) * 1000);
      timed.command = -1;
    }
    return this.ended();
  }

  /** The untimed run after its first wait. */
  private async rest(first: Promise<unknown>): Promise<void> {
    for (let wait: Promise<unknown> | undefined = first; wait !== undefined; wait = this.advance(undefined)) await wait;
    return this.ended();
  }

  /** pgbench's words for an error that ends the client: an SQL error names the script, command and query. */
  abortText(error: DbError, script: number): string {
    const { command } = this.frame;
    if (error instanceof ShellError) {
      return `aborted in command ${command} (${error.meta}) of script ${script}; execution of meta-command failed (${error.message})`;
    }
    if (error instanceof ScriptError) return `aborted: ${error.message}`;
    return `script ${script} aborted in command ${command} query ${error.statement ?? 0}: ${error.report ?? error.message}`;
  }

  errorPlace(script: number): string {
    return `command ${this.frame.command} (SQL) of script ${script}`;
  }

  private ended(): Promise<void> {
    if (!this.inTransaction) return RESOLVED;
    const message = `end of script reached without completing the last transaction (${this.program.name}): end it with END or COMMIT`;
    return Promise.reject(new ScriptError(message, true));
  }

  /** Runs steps from `pc` up to the first that must be waited for, and returns its promise; undefined at the end. */
  private advance(timed: { command: number; startedAt: number } | undefined): Promise<unknown> | undefined {
    const { steps } = this.program;
    const { frame, timings } = this;
    while (this.pc < steps.length) {
      const pc = this.pc++;
      const step = steps[pc]!;
      if (timed) {
        if (timed.command >= 0) timings!.record(timed.command, (performance.now() - timed.startedAt) * 1000);
        timed.command = step.command;
        timed.startedAt = performance.now();
      }
      frame.command = step.command;
      switch (step.op) {
        case 'set':
          frame.vars[step.slot] = step.value(frame);
          break;
        case 'jump': {
          if (step.when === undefined || !truth(step.when(frame))) this.pc = step.to;
          break;
        }
        case 'sleep': {
          const amount = sleepAmount(step.amount, frame);
          const us = Number(typeof amount === 'bigint' ? amount : amount instanceof Double ? amount.v : amount) * step.factorUs;
          if (!Number.isFinite(us)) throw new ScriptError(`\\sleep: invalid duration ${valueText(amount)}`);
          if (us > 0) return new Promise((resolve) => setTimeout(resolve, us / 1000));
          break;
        }
        case 'shell':
          if (step.variable === undefined) return runShell(step.words, frame);
          return runSetShell(step.words, frame).then((value) => void (frame.vars[step.variable!] = value));
        case 'fail':
          throw new ScriptError(step.message);
        case 'pipeline':
          if (step.start) this.pipeline = [];
          else if (this.pipeline) {
            const pending = this.pipeline;
            this.pipeline = undefined;
            return Promise.all(pending);
          }
          break;
        case 'sql': {
          const control = step.sql.control;
          if (control === 'begin') this.inTransaction = true;
          else if (control !== undefined) this.inTransaction = false;
          if (!this.pipeline || !this.pipelining) return this.sql(step, pc);
          let done: Promise<unknown>;
          try {
            done = this.sql(step, pc);
          } catch (error) {
            done = Promise.reject(error);
          }
          // Keep the promise from rejecting unobserved; Promise.all at \endpipeline reports it.
          done.catch(() => {});
          this.pipeline.push(done as Promise<void>);
          break;
        }
      }
    }
    return undefined;
  }

  /** Not async: the prepared path hands back the driver's own promise (one fewer per statement). */
  private sql(step: SqlStep, pc: number): Promise<unknown> {
    const { conn } = this;
    const { sql } = step;
    switch (sql.control) {
      case 'begin':
        return conn.begin();
      case 'commit':
        return conn.commit();
      case 'rollback':
        return conn.rollback();
    }
    const params = this.params[pc]!;
    this.bind(sql, params);
    if (sql.compound) return this.compound(step, params);
    if (this.terminal.protocol === 'prepared') {
      const statement = this.statements[pc];
      if (statement === undefined) return this.prepareAndRun(step, pc, params);
      if (step.store === undefined) return statement.run(params);
      return statement.all(params).then((rows) => this.store(step, pc, rows));
    }
    if (this.terminal.protocol === 'simple') {
      // The driver builds the request from the pieces and values where it can (PostgreSQL's Query
      // message, its rows only counted when nobody reads them); the others get the text.
      const literal = this.literals[pc] ?? (conn.literalStatement ? (this.literals[pc] = conn.literalStatement(sql.pieces)) : undefined);
      const values = params as LiteralValue[];
      if (literal !== undefined) return step.store === undefined ? literal.run(values) : literal.all(values).then((rows) => this.store(step, pc, rows));
    }
    const rows =
      this.terminal.protocol === 'extended'
        ? conn.query(sql.parameterized, params)
        : // Only PostgreSQL's driver sends a parameterless query as a simple Query message; the
          // others get the text with its values in place just the same.
          conn.query(simpleQueryText(sql, params as LiteralValue[]));
    return step.store === undefined ? rows : rows.then((r) => this.store(step, pc, r));
  }

  /**
   * Queries joined by \\;, sent in one Query message as pgbench sends them: \gset stores the last
   * query's one row, \aset each query's last row (a query without rows is skipped), with the
   * columns as the server names them. A failing query is numbered in the abort message.
   */
  private async compound(step: SqlStep, params: SqlValue[]): Promise<void> {
    const results = await this.conn.queryResults!(simpleQueryText(step.sql, params as LiteralValue[]));
    const store = step.store;
    if (store === undefined) return;
    const tag = store.all ? 'aset' : 'gset';
    for (let query = store.all ? 0 : results.length - 1; query < results.length; query++) {
      const { columns, rows } = results[query]!;
      if (!store.all && (columns === undefined || rows.length !== 1)) {
        throw new ScriptError(`command ${this.frame.command} query ${query}: expected one row, got ${rows.length}`);
      }
      if (columns === undefined || rows.length === 0) continue;
      const row = rows[rows.length - 1]!;
      for (let i = 0; i < columns.length; i++) {
        const name = store.prefix + columns[i]!;
        if (!VARIABLE_NAME.test(name)) throw new ScriptError(`\\${tag}: invalid variable name "${name}"`);
        const cell = row[i];
        // The server's text, as pgbench stores it.
        this.frame.vars[this.program.variables.slot(name)] = cell === null || cell === undefined ? null : cellValue(cell);
      }
    }
  }

  /** A statement's first execution on this connection: prepared first. */
  private async prepareAndRun(step: SqlStep, pc: number, params: SqlValue[]): Promise<void> {
    const statement = (this.statements[pc] = await this.conn.prepare(step.sql.parameterized).catch((error: unknown) => this.notPrepared(step, error)));
    if (step.store === undefined) await statement.run(params);
    else this.store(step, pc, await statement.all(params));
  }

  /**
   * pgbench logs the server's refusal of a PREPARE and goes on to execute the statement, which
   * then does not exist: both are told, the client stops at the second as pgbench's does.
   */
  private notPrepared(step: SqlStep, error: unknown): never {
    if (!(error instanceof DbError) || error.report === undefined || error.errorClass !== 'bad_request') throw error;
    process.stderr.write(`error: ${error.report}\n`);
    const message = `prepared statement of command ${step.command} does not exist: the server refused to prepare it (${error.message})`;
    throw new DbError('bad_request', message, error.code, undefined, { cause: error });
  }

  private bind(sql: SqlCommand, params: SqlValue[]): void {
    const { vars } = this.frame;
    for (let i = 0; i < sql.slots.length; i++) {
      const v = vars[sql.slots[i]!];
      if (v !== undefined) params[i] = bindable(v);
      // pgbench -M extended and prepared bind a variable never set as NULL; -M simple would send the
      // text ":name" for the server to reject, which headroom refuses here in its own words.
      else if (this.terminal.protocol !== 'simple') params[i] = null;
      else throw new ScriptError(`undefined variable "${sql.names[i]}"`);
    }
  }

  /** \gset: exactly one row into variables named prefix + column; \aset: every row, the last one wins, none is fine. */
  private store(step: SqlStep, pc: number, rows: Row[]): void {
    const { prefix, all } = step.store!;
    if (!all && rows.length !== 1) throw new ScriptError(`\\gset: expected one row, got ${rows.length} (${step.label})`);
    if (rows.length === 0) return;
    // Column names are read from the statement's text once; each then has its variable slot.
    const slots = (this.storeSlots[pc] ??= columnNames(step.sql.parameterized).map((name) =>
      name === undefined ? undefined : this.program.variables.slot(prefix + name),
    ));
    for (const row of rows) {
      for (let i = 0; i < row.length; i++) {
        const slot = slots[i];
        if (slot === undefined)
          throw new ScriptError(`\\${all ? 'aset' : 'gset'}: cannot tell the name of result column ${i + 1} of "${step.label}": give it an alias (AS name)`);
        const cell = row[i];
        this.frame.vars[slot] = cell === null || cell === undefined ? null : cellValue(cell);
      }
    }
  }
}
