import { FUNCTIONS } from './functions.js';

/**
 * pgbench's expression language (the \set right-hand side), parsed into a tree. Precedence, lowest
 * first, as pgbench's grammar declares it: OR; AND; NOT; IS / ISNULL / NOTNULL; comparisons
 * (non-associative); the bit operators | # & << >> (one level, left); + -; * / %; unary + - ~.
 */
export type Expr =
  | { k: 'const'; v: number | bigint | boolean | null; double?: true }
  | { k: 'var'; name: string; at: number }
  | { k: 'op'; op: string; args: Expr[]; at: number }
  | { k: 'fn'; name: string; args: Expr[]; at: number }
  | { k: 'case'; whens: [Expr, Expr][]; otherwise: Expr };

/** A parse error at a column (0-based) of the text given to parseExpression. */
export class ExprSyntaxError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

interface Token {
  t: 'num' | 'dbl' | 'var' | 'ident' | 'op' | 'end';
  s: string;
  at: number;
}

/** The functions whose last argument, a seed, may be left out, and their argument count without it. */
const UNSEEDED_ARGUMENTS: Record<string, number> = { hash: 1, hash_murmur2: 1, hash_fnv1a: 1, permute: 2 };

/** DBL_MIN: below it strtod reports ERANGE. */
const MIN_NORMAL_DOUBLE = 2.2250738585072014e-308;

const KEYWORDS = new Set(['and', 'or', 'not', 'is', 'isnull', 'notnull', 'case', 'when', 'then', 'else', 'end', 'true', 'false', 'null']);
const OPERATORS = ['<>', '!=', '<=', '>=', '<<', '>>', '+', '-', '*', '/', '%', '(', ')', ',', '<', '>', '=', '&', '|', '#', '~'];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const rest = text.slice(i);
    const number = /^(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?/.exec(rest);
    if (number) {
      const isDouble = number[0].includes('.') || number[2] !== undefined;
      tokens.push({ t: isDouble ? 'dbl' : 'num', s: number[0], at: i });
      i += number[0].length;
      if (/^[A-Za-z_\u0080-\uffff]/.test(text.slice(i))) throw new ExprSyntaxError('syntax error', i);
      continue;
    }
    // exprscan.l's :{alnum}+, non-ASCII characters among them (pgbench's scanner reads bytes from \200 to \377 as letters).
    const variable = /^:([A-Za-z0-9_\u0080-\uffff]+)/.exec(rest);
    if (variable) {
      tokens.push({ t: 'var', s: variable[1]!, at: i });
      i += variable[0].length;
      continue;
    }
    const ident = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*/.exec(rest);
    if (ident) {
      tokens.push({ t: 'ident', s: ident[0], at: i });
      i += ident[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => rest.startsWith(o));
    if (!op) throw new ExprSyntaxError(`unexpected character (${c})`, i);
    tokens.push({ t: 'op', s: op, at: i });
    i += op.length;
  }
  tokens.push({ t: 'end', s: '', at: text.length });
  return tokens;
}

export function parseExpression(text: string): Expr {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = (): Token => tokens[pos]!;
  const word = (tok: Token): string | undefined => (tok.t === 'ident' && KEYWORDS.has(tok.s.toLowerCase()) ? tok.s.toLowerCase() : undefined);
  const isWord = (w: string): boolean => word(peek()) === w;
  const isOp = (o: string): boolean => peek().t === 'op' && peek().s === o;
  const fail = (message = 'syntax error'): never => {
    throw new ExprSyntaxError(message, peek().at);
  };
  const expectWord = (w: string): void => {
    if (!isWord(w)) fail(`syntax error: expected ${w.toUpperCase()}`);
    pos++;
  };
  const op = (name: string, at: number, ...args: Expr[]): Expr => ({ k: 'op', op: name, args, at });

  const orExpr = (): Expr => {
    const left = andExpr();
    if (!isWord('or')) return left;
    const at = tokens[pos++]!.at;
    return op('or', at, left, orExpr());
  };
  const andExpr = (): Expr => {
    const left = notExpr();
    if (!isWord('and')) return left;
    const at = tokens[pos++]!.at;
    return op('and', at, left, andExpr());
  };
  const notExpr = (): Expr => {
    if (isWord('not')) {
      const at = tokens[pos++]!.at;
      return op('not', at, notExpr());
    }
    return isExpr();
  };
  const isExpr = (): Expr => {
    const left = comparison();
    const at = peek().at;
    if (isWord('isnull')) return (pos++, op('is', at, left, { k: 'const', v: null }));
    if (isWord('notnull')) return (pos++, op('not', at, op('is', at, left, { k: 'const', v: null })));
    if (!isWord('is')) return left;
    pos++;
    const negate = isWord('not') ? (pos++, true) : false;
    const w = word(peek());
    if (w !== 'null' && w !== 'true' && w !== 'false') fail('syntax error: expected NULL, TRUE or FALSE after IS');
    pos++;
    const test = op('is', at, left, { k: 'const', v: w === 'null' ? null : w === 'true' });
    return negate ? op('not', at, test) : test;
  };
  const COMPARISONS = ['=', '<>', '!=', '<', '<=', '>', '>='];
  const comparison = (): Expr => {
    const left = bits();
    const tok = peek();
    if (tok.t !== 'op' || !COMPARISONS.includes(tok.s)) return left;
    pos++;
    const right = bits();
    const next = peek();
    if (next.t === 'op' && COMPARISONS.includes(next.s)) fail();
    return op(tok.s === '!=' ? '<>' : tok.s, tok.at, left, right);
  };
  const leftAssoc = (ops: readonly string[], operand: () => Expr) => (): Expr => {
    let left = operand();
    while (peek().t === 'op' && ops.includes(peek().s)) {
      const tok = tokens[pos++]!;
      left = op(tok.s, tok.at, left, operand());
    }
    return left;
  };
  const unary = (): Expr => {
    const tok = peek();
    if (tok.t === 'op' && (tok.s === '-' || tok.s === '+' || tok.s === '~')) {
      pos++;
      const next = peek();
      // -9223372036854775808 is a literal of its own: its absolute value does not fit in 64 bits.
      if (tok.s === '-' && next.t === 'num' && next.s === '9223372036854775808') return (pos++, { k: 'const', v: -(2n ** 63n) });
      const operand = unary();
      return tok.s === '+' ? operand : op(tok.s === '-' ? 'neg' : '~', tok.at, operand);
    }
    return primary();
  };
  const product = leftAssoc(['*', '/', '%'], unary);
  const sum = leftAssoc(['+', '-'], product);
  const bits = leftAssoc(['|', '#', '&', '<<', '>>'], sum);

  const primary = (): Expr => {
    const tok = peek();
    if (tok.t === 'num') {
      pos++;
      const big = BigInt(tok.s);
      if (big > 2n ** 63n - 1n) throw new ExprSyntaxError(`bigint constant overflow (${tok.s})`, tok.at);
      return { k: 'const', v: Number.isSafeInteger(Number(big)) ? Number(big) : big };
    }
    if (tok.t === 'dbl') {
      pos++;
      const v = Number(tok.s);
      // pgbench refuses what strtod reports out of range: an infinity, or a nonzero value below the
      // smallest normal double (subnormal or zero).
      if (!Number.isFinite(v) || (v !== 0 && v < MIN_NORMAL_DOUBLE) || (v === 0 && /[1-9]/.test(tok.s.split(/[eE]/)[0]!))) {
        throw new ExprSyntaxError(`double constant overflow (${tok.s})`, tok.at);
      }
      return { k: 'const', v, double: true };
    }
    if (tok.t === 'var') return (pos++, { k: 'var', name: tok.s, at: tok.at });
    if (tok.t === 'op' && tok.s === '(') {
      pos++;
      const inner = orExpr();
      if (!isOp(')')) fail('syntax error: expected )');
      pos++;
      return inner;
    }
    const w = word(tok);
    if (w === 'true' || w === 'false') return (pos++, { k: 'const', v: w === 'true' });
    if (w === 'null') return (pos++, { k: 'const', v: null });
    if (w === 'case') return caseExpr();
    if (tok.t === 'ident' && w === undefined) {
      pos++;
      if (!isOp('(')) throw new ExprSyntaxError('syntax error: expected ( after a function name', peek().at);
      pos++;
      const args: Expr[] = [];
      if (!isOp(')')) {
        for (;;) {
          args.push(orExpr());
          if (isOp(')')) break;
          if (!isOp(',')) fail('syntax error: expected , or )');
          pos++;
        }
      }
      pos++;
      // Checked as soon as the call is read, as pgbench's grammar does: `abs(1, 2))` is an argument
      // count error, not a syntax error at the stray parenthesis.
      const name = tok.s.toLowerCase();
      const fn = FUNCTIONS[name];
      if (!fn) throw new ExprSyntaxError(`unexpected function name (${name})`, tok.at);
      // pgbench's words: variadic functions (least, greatest) need at least one argument.
      if (args.length < fn.min && fn.max === Infinity) throw new ExprSyntaxError(`at least one argument expected (${name})`, tok.at);
      if (args.length < fn.min || args.length > fn.max) throw new ExprSyntaxError(`unexpected number of arguments (${name})`, tok.at);
      // As pgbench: a hash or permute without its seed reads the variable default_seed, which -D or \set may change.
      if (UNSEEDED_ARGUMENTS[name] === args.length) args.push({ k: 'var', name: 'default_seed', at: tok.at });
      return { k: 'fn', name, args, at: tok.at };
    }
    return fail();
  };
  const caseExpr = (): Expr => {
    pos++;
    const whens: [Expr, Expr][] = [];
    while (isWord('when')) {
      pos++;
      const condition = orExpr();
      expectWord('then');
      whens.push([condition, orExpr()]);
    }
    if (whens.length === 0) fail('syntax error: expected WHEN');
    let otherwise: Expr = { k: 'const', v: null };
    if (isWord('else')) {
      pos++;
      otherwise = orExpr();
    }
    expectWord('end');
    return { k: 'case', whens, otherwise };
  };

  const tree = orExpr();
  if (peek().t !== 'end') fail();
  return tree;
}
