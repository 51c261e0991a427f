import type { TransactionType } from '../../workloads/workload.js';
import type { Routing } from './routed-connector.js';

/**
 * Each transaction tells the connection, before it runs, whether its type declared itself
 * read-only: under read-only-transactions it picks the node, and a driver may start it as a
 * read-only transaction. Needless where no type declares itself read-only and nothing routes by
 * it. The workloads' own code stays as it is.
 */
export function declaringTypes(types: readonly TransactionType[], routing: Routing | undefined): readonly TransactionType[] {
  if (routing?.route !== 'read-only-transactions' && !types.some((type) => type.readOnly === true)) return types;
  return types.map((type) => ({
    ...type,
    async prepare(conn, terminal) {
      const run = await type.prepare(conn, terminal);
      // A connection that takes no declaration (PostgreSQL's, MariaDB's) runs the type as it is.
      if (conn.declareReadOnly === undefined) return run;
      const readOnly = type.readOnly === true;
      const declared = () => {
        conn.declareReadOnly?.(readOnly);
        return run();
      };
      // The runner's own words for its errors (abortText, errorPlace: pgbench's lines) stay with it.
      return Object.assign(declared, run);
    },
  }));
}
