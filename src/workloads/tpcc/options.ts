import type { OptionSpec } from '../../config/options.js';

/** --procedures: the transactions run as server-side procedures (issue #6), where the DBMS has them. */
export const PROCEDURES_OPTION = 'procedures';

/** tpcc's own options, apart from its code: every parse of a command line knows them without loading it (registry.ts). */
export const TPCC_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'keying-thinking',
    type: 'boolean',
    help: "keying and think times of TPC-C 5.2.5 around each transaction (off: no pauses, as HammerDB's default)",
    default: false,
    verbs: ['run'],
  },
  {
    long: PROCEDURES_OPTION,
    type: 'boolean',
    help: 'run each transaction as one call of a server-side procedure (PL/pgSQL functions on PostgreSQL, stored procedures on MariaDB), created at load or before the run',
    default: false,
    verbs: ['init', 'run'],
  },
  {
    long: 'check-all',
    type: 'boolean',
    help: 'check consistency conditions 5-12 of TPC-C 3.3.2 too, not only 1-4 (slower: row by row)',
    default: false,
    verbs: ['check', 'run'],
  },
];
