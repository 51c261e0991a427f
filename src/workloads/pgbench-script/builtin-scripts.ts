/**
 * pgbench's built-in scripts, as its documentation prints them ("Built-in Scripts"). They run
 * through the same interpreter as script files, so --protocol and per-command figures apply.
 */
const TPCB_HEAD = String.raw`\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`;

const TPCB_TAIL = String.raw`INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`;

export const BUILTIN_SCRIPTS: Readonly<Record<string, string>> = {
  /** TPC-B 1.2's profile: one account, teller and branch drawn independently. */
  'tpcb-like': `${TPCB_HEAD}UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
${TPCB_TAIL}`,
  /** tpcb-like without the teller and branch updates, so clients do not contend on those rows. */
  'simple-update': `${TPCB_HEAD}${TPCB_TAIL}`,
  /**
   * The read-offloading study's TPC-B variant (docs/experiments.md section 1): three account reads
   * (aid, aid+1, aid+2, wrapping past the last account) before the first write, so that --route
   * split can send them to replicas; the branch update stays so that tpcb's check holds.
   */
  'three-reads': String.raw`\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
\set aid2 :aid % (100000 * :scale) + 1
\set aid3 (:aid + 1) % (100000 * :scale) + 1
BEGIN;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid2;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid3;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
${TPCB_TAIL}`,
  'select-only': String.raw`\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`,
};
