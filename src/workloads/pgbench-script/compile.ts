import type { Expr } from './expr-parser.js';
import { ExprSyntaxError } from './expr-parser.js';
import type { Variables } from './frame.js';
import { FUNCTIONS, type Compiled } from './functions.js';
import { arithmetic, bitwise, compare, isSame } from './operators.js';
import { Double, ScriptError, parseVariableText, toBool, toInt, truth, type Value } from './value.js';

export type { Compiled };

/** Turns an expression tree into nested closures, once per script: no tree walking per transaction. */
export function compile(expr: Expr, variables: Variables): Compiled {
  switch (expr.k) {
    case 'const': {
      const value = expr.double ? new Double(expr.v as number) : expr.v;
      return () => value;
    }
    case 'var': {
      const slot = variables.slot(expr.name);
      const name = expr.name;
      // The last text read and its value: a -D value is read once, not on every transaction.
      let lastText: string | undefined;
      let lastValue: Exclude<Value, string> = null;
      return (f) => {
        const v = f.vars[slot];
        if (v === undefined) throw new ScriptError(`undefined variable "${name}"`);
        // -D and \gset values stay text (SQL gets them as given) and are read as typed here.
        if (typeof v !== 'string') return v;
        if (v !== lastText) {
          lastValue = parseVariableText(name, v);
          lastText = v;
        }
        return lastValue;
      };
    }
    case 'case': {
      const whens = expr.whens.map(([c, e]) => [compile(c, variables), compile(e, variables)] as const);
      const otherwise = compile(expr.otherwise, variables);
      return (f) => {
        for (const [c, e] of whens) if (truth(c(f))) return e(f);
        return otherwise(f);
      };
    }
    case 'fn': {
      const fn = FUNCTIONS[expr.name];
      if (!fn) throw new ExprSyntaxError(`unexpected function name (${expr.name})`, expr.at);
      if (expr.args.length < fn.min || expr.args.length > fn.max) throw new ExprSyntaxError(`unexpected number of arguments (${expr.name})`, expr.at);
      return fn.compile(expr.args.map((a) => compile(a, variables)));
    }
    case 'op':
      return compileOperator(
        expr.op,
        expr.args.map((a) => compile(a, variables)),
      );
  }
}

function compileOperator(op: string, args: Compiled[]): Compiled {
  const [a, b] = args as [Compiled, Compiled];
  switch (op) {
    // AND and OR are lazy and three-valued: NULL on either side that is looked at gives NULL.
    case 'and':
      return (f) => {
        const l = a(f);
        if (l === null) return null;
        if (!toBool(l)) return false;
        const r = b(f);
        return r === null ? null : toBool(r);
      };
    case 'or':
      return (f) => {
        const l = a(f);
        if (l === null) return null;
        if (toBool(l)) return true;
        const r = b(f);
        return r === null ? null : toBool(r);
      };
    case 'not':
      return (f) => {
        const v = a(f);
        return v === null ? null : !toBool(v);
      };
    case 'is':
      return (f) => isSame(a(f), b(f));
    case 'neg':
      return (f) => {
        const v = a(f);
        if (v === null) return null;
        if (v instanceof Double) return new Double(-v.v);
        return arithmetic('-', 0, toInt(v));
      };
    case '~':
      return (f) => {
        const v = a(f);
        return v === null ? null : bitwise('#', toInt(v), -1);
      };
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
      return (f) => {
        const l = a(f);
        const r = b(f);
        return l === null || r === null ? null : arithmetic(op, l, r);
      };
    case '&':
    case '|':
    case '#':
    case '<<':
    case '>>':
      return (f) => {
        const l = a(f);
        const r = b(f);
        return l === null || r === null ? null : bitwise(op, toInt(l), toInt(r));
      };
    default:
      return (f) => {
        const l = a(f);
        const r = b(f);
        return l === null || r === null ? null : compare(op, l, r);
      };
  }
}
