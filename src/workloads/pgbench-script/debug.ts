import type { Connection, Row, SqlValue, Statement } from '../../drivers/driver.js';
import type { Program, Step } from './program.js';

/**
 * pgbench -d's lines for one client: "executing script", "executing \set aid", "sending ...",
 * "receiving". Only a run that asks for them (--debug) goes through these wrappers; the script
 * interpreter and the drivers are the same either way.
 */
export type DebugLine = (line: string) => void;

export function debugLine(client: number): DebugLine {
  return (line) => void process.stderr.write(`debug: client ${client} ${line}\n`);
}

/** The connection with each request told as it is sent and as its answer is read. */
export function debugConnection(conn: Connection, log: DebugLine): Connection {
  const answered = <T>(sent: Promise<T>): Promise<T> => sent.finally(() => log('receiving'));
  const control = (word: string, send: () => Promise<void>) => (): Promise<void> => (log(`sending ${word}`), answered(send()));
  const told: Partial<Connection> = {
    query: (sql: string, params?: readonly SqlValue[]): Promise<Row[]> => (log(`sending ${sql}`), answered(conn.query(sql, params))),
    prepare: async (sql: string): Promise<Statement> => {
      const statement = await conn.prepare(sql);
      return {
        run: (params?: readonly SqlValue[]) => (log(`sending (prepared) ${sql}`), answered(statement.run(params))),
        all: (params?: readonly SqlValue[]) => (log(`sending (prepared) ${sql}`), answered(statement.all(params))),
      };
    },
    begin: control('BEGIN', () => conn.begin()),
    commit: control('COMMIT', () => conn.commit()),
    rollback: control('ROLLBACK', () => conn.rollback()),
    // Literal statements go as text through query() above, so that each is told as it is sent.
    literalStatement: undefined,
    ...(conn.queryResults ? { queryResults: (sql: string) => (log(`sending ${sql}`), answered(conn.queryResults!(sql))) } : {}),
  };
  // Everything else is the connection's own, called on it.
  return new Proxy(conn, {
    get(target, key) {
      if (key in told) return told[key as keyof Connection];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The program with each meta-command told as the client executes it, as pgbench names it (\set with its variable). */
export function debugProgram(program: Program, log: DebugLine): Program {
  const told = (step: Step): Step => {
    switch (step.op) {
      case 'set': {
        const { value } = step;
        const line = `executing ${step.label.split(/\s+/).slice(0, 2).join(' ')}`;
        return { ...step, value: (frame) => (log(line), value(frame)) };
      }
      case 'sleep': {
        const { amount } = step;
        return { ...step, amount: (frame) => (log(`executing ${step.label}`), amount(frame)) };
      }
      default:
        return step;
    }
  };
  return { ...program, steps: program.steps.map(told) };
}
