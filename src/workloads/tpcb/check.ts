import type { CheckOutcome, DataContext } from '../workload.js';
import { tpcbDialect } from './dialect.js';
import { ROWS_PER_SCALE } from './schema.js';

/**
 * Every committed tpcb-like or simple-update delta is added once to an account and once to the
 * history, and every tpcb-like delta once to a teller and once to a branch: sum(abalance) must
 * equal sum(history.delta) and sum(tbalance) sum(bbalance) (compared exactly, as bigints). The
 * tellers' sum equals the accounts' only when no simple-update ran, so that is not required. Row counts must still match the scale.
 * Where every SELECT needs a FROM clause, the dialect names the one-row table.
 */
export async function checkTpcb(ctx: DataContext): Promise<CheckOutcome[]> {
  const [row] = await ctx.conn.query(
    `SELECT (SELECT COALESCE(SUM(abalance), 0) FROM pgbench_accounts),
            (SELECT COALESCE(SUM(tbalance), 0) FROM pgbench_tellers),
            (SELECT COALESCE(SUM(bbalance), 0) FROM pgbench_branches),
            (SELECT COALESCE(SUM(delta), 0) FROM pgbench_history),
            (SELECT COUNT(*) FROM pgbench_branches),
            (SELECT COUNT(*) FROM pgbench_tellers),
            (SELECT COUNT(*) FROM pgbench_accounts)${tpcbDialect(ctx.dbms).fromNoTable}`,
  );
  const [accounts, tellers, branches, history, branchCount, tellerCount, accountCount] = (row ?? []).map((v) => BigInt(String(v)));
  const outcomes: CheckOutcome[] = [];
  const sums = `sum(abalance) = ${accounts}, sum(tbalance) = ${tellers}, sum(bbalance) = ${branches}, sum(history.delta) = ${history}`;
  outcomes.push({
    name: 'balances agree',
    ok: accounts === history && tellers === branches,
    detail: sums,
  });
  const expect = (name: string, actual: bigint | undefined, perScale: number): void => {
    const expected = BigInt(perScale * ctx.scale);
    outcomes.push({ name: `${name} rows`, ok: actual === expected, detail: `${actual} rows, expected ${expected} at scale ${ctx.scale}` });
  };
  expect('branches', branchCount, ROWS_PER_SCALE.branches);
  expect('tellers', tellerCount, ROWS_PER_SCALE.tellers);
  expect('accounts', accountCount, ROWS_PER_SCALE.accounts);
  return outcomes;
}
