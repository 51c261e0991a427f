-- sysbench's oltp_read_write (default options) in pgbench's script language, on the table
-- sysbench prepared (sbtest1): 10 point selects, 4 range selects of 100 rows, an index update,
-- a non-index update, and a delete plus insert of one row, in one transaction.
-- sysbench fills c and pad with random digits client-side; a script cannot make strings, so the
-- server formats them from random numbers (a few microseconds of server CPU per transaction).
\set id1 random(1, :table_size)
\set id2 random(1, :table_size)
\set id3 random(1, :table_size)
\set id4 random(1, :table_size)
\set id5 random(1, :table_size)
\set id6 random(1, :table_size)
\set id7 random(1, :table_size)
\set id8 random(1, :table_size)
\set id9 random(1, :table_size)
\set id10 random(1, :table_size)
\set r1 random(1, :table_size - 99)
\set r2 random(1, :table_size - 99)
\set r3 random(1, :table_size - 99)
\set r4 random(1, :table_size - 99)
\set uk random(1, :table_size)
\set un random(1, :table_size)
\set del random(1, :table_size)
\set k random(1, :table_size)
\set d1 random(0, 99999999999)
\set d2 random(0, 99999999999)
BEGIN;
SELECT c FROM sbtest1 WHERE id = :id1;
SELECT c FROM sbtest1 WHERE id = :id2;
SELECT c FROM sbtest1 WHERE id = :id3;
SELECT c FROM sbtest1 WHERE id = :id4;
SELECT c FROM sbtest1 WHERE id = :id5;
SELECT c FROM sbtest1 WHERE id = :id6;
SELECT c FROM sbtest1 WHERE id = :id7;
SELECT c FROM sbtest1 WHERE id = :id8;
SELECT c FROM sbtest1 WHERE id = :id9;
SELECT c FROM sbtest1 WHERE id = :id10;
SELECT c FROM sbtest1 WHERE id BETWEEN :r1 AND :r1 + 99;
SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN :r2 AND :r2 + 99;
SELECT c FROM sbtest1 WHERE id BETWEEN :r3 AND :r3 + 99 ORDER BY c;
SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN :r4 AND :r4 + 99 ORDER BY c;
UPDATE sbtest1 SET k = k + 1 WHERE id = :uk;
UPDATE sbtest1 SET c = CONCAT(LPAD(:d1, 11, '0'), '-', LPAD(:d2, 11, '0'), '-', LPAD(:d1, 11, '0'), '-', LPAD(:d2, 11, '0'), '-', LPAD(:d1, 11, '0'), '-', LPAD(:d2, 11, '0'), '-', LPAD(:d1, 11, '0'), '-', LPAD(:d2, 11, '0'), '-', LPAD(:d1, 11, '0'), '-', LPAD(:d2, 11, '0')) WHERE id = :un;
DELETE FROM sbtest1 WHERE id = :del;
INSERT INTO sbtest1 (id, k, c, pad) VALUES (:del, :k, CONCAT(LPAD(:d2, 11, '0'), '-', LPAD(:d1, 11, '0'), '-', LPAD(:d2, 11, '0'), '-', LPAD(:d1, 11, '0'), '-', LPAD(:d2, 11, '0'), '-', LPAD(:d1, 11, '0'), '-', LPAD(:d2, 11, '0'), '-', LPAD(:d1, 11, '0'), '-', LPAD(:d2, 11, '0'), '-', LPAD(:d1, 11, '0')), CONCAT(LPAD(:d1, 11, '0'), '-', LPAD(:d2, 11, '0'), '-', LPAD(:d1, 11, '0'), '-', LPAD(:d2, 11, '0'), '-', LPAD(:d1, 11, '0')));
COMMIT;
