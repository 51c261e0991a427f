-- sysbench's oltp_point_select in pgbench's script language: one primary-key lookup per
-- transaction on the table sysbench prepared (sbtest1). Run with -D table_size=N to match
-- sysbench's --table-size; keys are uniform like sysbench's --rand-type=uniform.
\set id random(1, :table_size)
SELECT c FROM sbtest1 WHERE id = :id;
