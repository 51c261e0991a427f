import { compile } from '../../../src/workloads/pgbench-script/compile.js';
import { parseExpression } from '../../../src/workloads/pgbench-script/expr-parser.js';
import { Variables, type Frame } from '../../../src/workloads/pgbench-script/frame.js';
import { typeName, valueText, type Value } from '../../../src/workloads/pgbench-script/value.js';
import { clientRandom } from '../../../src/workloads/pgbench-script/pg-random.js';

/** Evaluates one \set expression and shows the result as pgbench's debug() prints it ("int 5"). */
export function show(text: string, vars: Record<string, Value> = {}, seed = 1): string {
  const v = evaluate(text, vars, seed);
  return v === null ? 'null' : `${typeName(v)} ${valueText(v)}`;
}

export function evaluate(text: string, vars: Record<string, Value> = {}, seed = 1): Value {
  return evaluator(text, vars, seed)();
}

/** A compiled expression with its own frame, to draw many values from one random stream (pgbench's single client's for --random-seed `seed`). */
export function evaluator(text: string, vars: Record<string, Value> = {}, seed = 1): () => Value {
  const variables = new Variables();
  const compiled = compile(parseExpression(text), variables);
  const frame: Frame = { vars: [], random: clientRandom(seed, 0, 1), command: 0, debug: () => {} };
  for (const [name, value] of Object.entries({ default_seed: 5432, ...vars })) frame.vars[variables.slot(name)] = value;
  return () => compiled(frame);
}
