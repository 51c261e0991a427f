import { MAX_INT4 } from '../../config/limits.js';

/**
 * pgbench's four tables with pgbench's names and column types, so pgbench and headroom can run
 * against the same database in turn (each DBMS's statements are in dialect.ts). Row counts per
 * unit of scale follow pgbench (and TPC-B 4.2): 1 branch, 10 tellers, 100,000 accounts.
 */
export const TABLES = ['pgbench_history', 'pgbench_tellers', 'pgbench_accounts', 'pgbench_branches'] as const;

export const ROWS_PER_SCALE = { branches: 1, tellers: 10, accounts: 100_000 } as const;

/**
 * pgbench switches aid to bigint from this scale on (its SCALE_32BIT_THRESHOLD): 100,000 accounts
 * per unit pass 2^31 - 1 above scale 21,474, and pgbench keeps a margin.
 */
export const BIGINT_SCALE = 20_000;

/** The largest scale whose teller ids (10 a branch) fit pgbench_tellers.tid, an int on every DBMS (accounts' aid is bigint by then). */
export const MAX_TPCB_SCALE = Math.floor(MAX_INT4 / ROWS_PER_SCALE.tellers);
