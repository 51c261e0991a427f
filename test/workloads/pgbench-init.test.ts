import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServerTarget } from '../../src/config/target.js';
import { createDriver } from '../helpers/drivers.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase, type TestDatabase } from '../helpers/databases.js';

/** Everything \d shows of pgbench's tables, and their contents' shape, as comparable rows. */
const DESCRIBE = [
  `SELECT c.relname, c.relkind, c.relpersistence, COALESCE(array_to_string(c.reloptions, ','), ''), COALESCE(pg_get_partkeydef(c.oid), ''), COALESCE(pg_get_expr(c.relpartbound, c.oid), '')
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relname LIKE 'pgbench%' ORDER BY 1`,
  `SELECT table_name, column_name, data_type, COALESCE(character_maximum_length, 0), is_nullable, ordinal_position
     FROM information_schema.columns WHERE table_schema = 'public' AND table_name LIKE 'pgbench%' ORDER BY 1, 2`,
  `SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conname LIKE 'pgbench%' ORDER BY 1`,
  `SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid::regclass::text LIKE 'pgbench%' ORDER BY 1`,
  `SELECT 'branches', COUNT(*), COUNT(filler), SUM(bbalance), MIN(bid), MAX(bid) FROM pgbench_branches`,
  `SELECT 'tellers', COUNT(*), COUNT(filler), SUM(tbalance), SUM(bid), MAX(tid) FROM pgbench_tellers`,
  `SELECT 'accounts', COUNT(*), COUNT(filler), MIN(octet_length(filler)), MAX(octet_length(filler)), SUM(bid::bigint), SUM(abalance) FROM pgbench_accounts`,
  `SELECT 'history', COUNT(*) FROM pgbench_history`,
  `SELECT tableoid::regclass::text, COUNT(*) FROM pgbench_accounts GROUP BY 1 ORDER BY 1`,
];

async function describe(db: TestDatabase): Promise<string[]> {
  const driver = createDriver(db.target);
  const conn = await driver.connect();
  try {
    const rows: string[] = [];
    for (const sql of DESCRIBE) for (const row of await conn.query(sql)) rows.push(row.map(String).join('|'));
    return rows;
  } finally {
    await conn.close();
    await driver.close();
  }
}

/** Real pgbench against a test database; pgbench comes with the PostgreSQL server packages scripts/services.sh installs. */
function pgbench(db: TestDatabase, args: readonly string[]): string {
  const target = db.target as ServerTarget;
  const child = spawnSync('pgbench', ['-h', target.host, '-p', String(target.port), '-U', target.user, ...args, target.database], { encoding: 'utf8' });
  assert.equal(child.error, undefined, 'pgbench must be installed (bash scripts/services.sh installs PostgreSQL with it)');
  assert.equal(child.status, 0, child.stderr);
  return child.stdout + child.stderr;
}

const SHAPES: { name: string; options: string[] }[] = [
  { name: 'defaults', options: ['-s', '2'] },
  { name: 'range partitions, fillfactor, foreign keys', options: ['-s', '2', '--partitions', '3', '-F', '90', '--foreign-keys'] },
  {
    name: 'hash partitions, unlogged, server-side generation',
    options: ['-s', '1', '-I', 'dtGvp', '--partitions', '4', '--partition-method', 'hash', '--unlogged-tables'],
  },
];

for (const shape of SHAPES) {
  test(`init tpcb --pgbench makes what pgbench -i makes: ${shape.name}`, async (t) => {
    const theirs = await freshDatabase(t, 'postgres');
    if (!theirs) return;
    t.after(() => theirs.dispose());
    const ours = await freshDatabase(t, 'postgres');
    if (!ours) return;
    t.after(() => ours.dispose());
    pgbench(theirs, ['-i', '-q', ...shape.options]);
    const init = await runCli(['init', 'tpcb', '--pgbench', ...shape.options, '--db', ours.url]);
    assert.equal(init.code, 0, init.stderr);
    const [a, b] = [await describe(theirs), await describe(ours)];
    assert.ok(a.length > 20, 'the description covers the tables');
    assert.deepEqual(b, a);
    // headroom runs on what it made, partitioned or not, reading the scale from pgbench_branches.
    const run = await runCli([
      'run',
      'tpcb',
      '--db',
      ours.url,
      '-c',
      '2',
      '-t',
      '20',
      '--observe=false',
      '--out',
      path.join(tmpdir(), `headroom-shape-${process.pid}.json`),
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^scaling factor: ${shape.options[1]}$`, 'm'));
    rmSync(path.join(tmpdir(), `headroom-shape-${process.pid}.json`), { force: true });
    const check = await runCli(['check', 'tpcb', '--db', ours.url]);
    assert.equal(check.code, 0, check.stdout);
  });
}

test('pgbench and headroom take turns on one database', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  t.after(() => db.dispose());
  const cwd = mkdtempSync(path.join(tmpdir(), 'headroom-turns-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const check = async (): Promise<void> => {
    const run = await runCli(['check', 'tpcb', '--db', db.url]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /all \d+ checks passed/);
  };

  // pgbench initialises at scale 2; headroom reads the scale from pgbench_branches and runs.
  pgbench(db, ['-i', '-q', '-s', '2']);
  const run = await runCli(['run', 'tpcb', '--db', db.url, '-c', '2', '-t', '50', '--observe=false', '--out', 'r.json'], { cwd });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^scaling factor: 2$/m);
  assert.match(run.stdout, /^number of transactions actually processed: 100\/100$/m);
  await check();

  // headroom initialises (history emptied, as pgbench -i does); pgbench runs on it.
  // Scale 1 over pgbench's 2: a smaller dataset replaces a larger one only with --force.
  const init = await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--force', '--db', db.url]);
  assert.equal(init.code, 0, init.stderr);
  assert.match(init.stderr, /the database holds tpcb at scale 2: init drops it and loads scale 1 \(--force\)/);
  const out = pgbench(db, ['-c', '2', '-t', '50']);
  assert.match(out, /scaling factor: 1\n/);
  assert.match(out, /number of transactions actually processed: 100\/100/);
  await check();
});

test('init tpcb --pgbench on SQLite does the steps that apply and refuses the others', async (t) => {
  const db = await freshDatabase(t, 'sqlite');
  if (!db) return;
  t.after(() => db.dispose());
  const init = await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--db', db.url]);
  assert.equal(init.code, 0, init.stderr);
  assert.match(init.stderr, /the primary keys were declared with the tables/);
  const check = await runCli(['check', 'tpcb', '--db', db.url]);
  assert.equal(check.code, 0, check.stdout);
  for (const [args, message] of [
    [['--foreign-keys'], /SQLite cannot add foreign keys/],
    [['--partitions', '2'], /--partitions applies to PostgreSQL only, not sqlite/],
    [['-I', 'dtGvp'], /server-side generation .* applies to PostgreSQL only/],
    [['--unlogged-tables'], /--unlogged-tables applies to PostgreSQL only/],
  ] as const) {
    const run = await runCli(['init', 'tpcb', '--pgbench', ...args, '--db', db.url]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, message);
  }
});

const FOREIGN_KEY_NAMES: Record<'mariadb' | 'firebird', string> = {
  mariadb: 'SELECT constraint_name FROM information_schema.referential_constraints WHERE constraint_schema = DATABASE() ORDER BY 1',
  firebird: "SELECT TRIM(LOWER(rdb$constraint_name)) FROM rdb$relation_constraints WHERE rdb$constraint_type = 'FOREIGN KEY' ORDER BY 1",
};

for (const dbms of ['mariadb', 'firebird'] as const) {
  test(`init tpcb --pgbench on ${dbms} adds pgbench's keys and foreign keys`, async (t) => {
    const db = await freshDatabase(t, dbms);
    if (!db) return;
    t.after(() => db.dispose());
    const init = await runCli(['init', 'tpcb', '--pgbench', '-s', '1', '--foreign-keys', '--db', db.url]);
    assert.equal(init.code, 0, init.stderr);
    const driver = createDriver(db.target);
    const conn = await driver.connect();
    try {
      const keys = await conn.query(FOREIGN_KEY_NAMES[dbms]);
      assert.deepEqual(
        keys.map((r) => String(r[0])),
        ['pgbench_accounts_bid_fkey', 'pgbench_history_aid_fkey', 'pgbench_history_bid_fkey', 'pgbench_history_tid_fkey', 'pgbench_tellers_bid_fkey'],
      );
      const [[tellersNullFiller]] = (await conn.query(`SELECT COUNT(*) FROM pgbench_tellers WHERE filler IS NULL`)) as [[unknown]];
      assert.equal(Number(tellersNullFiller), 10, 'tellers get a NULL filler, as pgbench -i gives them');
    } finally {
      await conn.close();
      await driver.close();
    }
    const check = await runCli(['check', 'tpcb', '--db', db.url]);
    assert.equal(check.code, 0, check.stdout);
  });
}
