/** The five transactions by the names their procedures are called with. */
export type ProcedureCall = 'newOrder' | 'payment' | 'orderStatus' | 'delivery' | 'stockLevel';

/** One DBMS's server-side procedures for --procedures (postgres.ts, mariadb.ts). */
export interface TpccProcedures {
  /** CREATE OR REPLACE of the five. */
  create: readonly string[];
  /** What drop removes besides the tables. */
  drop: readonly string[];
  /** How the terminal calls each, `?` for the inputs it draws. */
  calls: Readonly<Record<ProcedureCall, string>>;
  /** One of New-Order's line inputs (numbers, items, supplying warehouses, quantities) as the procedure takes it. */
  lineList(values: readonly number[]): string;
  /** New-Order's call passes the number of lines before the lists. */
  sendsLineCount: boolean;
}
