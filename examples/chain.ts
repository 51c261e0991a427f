/**
 * The address-chain study's model (operation -> client -> address -> street -> city -> country)
 * written as a workload module, with every statement prepared once per terminal: the same rows as
 * the built-in `chain` (same reference generator, same seeds) and the same unit as
 * `headroom run chain --statements prepared`.
 *
 *   headroom run examples/chain.ts -s 1/1000 -c 4 -T 10
 */
import { Random, RefGenerator, START_R, defineWorkload, distributedStart, runStart, type SqlValue } from 'headroom-oltp';

const FULL = { countries: 100, cities: 5_000, streets: 250_000, addresses: 12_500_000, clientsPerBatch: 3_333_333 };
type Sizes = typeof FULL;

/** Each table keeps at least 2 rows: the generator draws ids 1..n-1. */
function sizes(scale: number): Sizes {
  const sized = (full: number): number => Math.max(2, Math.round(full * scale));
  return {
    countries: sized(FULL.countries),
    cities: sized(FULL.cities),
    streets: sized(FULL.streets),
    addresses: sized(FULL.addresses),
    clientsPerBatch: sized(FULL.clientsPerBatch),
  };
}

/** Random printable ASCII of the column's full length, as the study fills names. */
function printable(random: Random, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += String.fromCharCode(0x20 + random.int(0, 94));
  return text;
}

function* rows(count: number, first: number, make: (id: number) => SqlValue[]): Generator<SqlValue[]> {
  for (let id = first; id < first + count; id++) yield make(id);
}

const CHAIN = `LEFT JOIN address a ON a.id = c.address_id LEFT JOIN street s ON s.id = a.street_id
  LEFT JOIN city ci ON ci.id = s.city_id LEFT JOIN country co ON co.id = ci.country_id`;
const COLUMNS = 'c.id, c.name, c.last_name, a.flat, a.building, a.house, s.name, ci.name, co.country_code, co.name';

/** Where the DBMS indexes a foreign-key column itself, the module adds no second index. */
const OWN_KEY_INDEXES = { mariadb: { indexes: [] }, firebird: { indexes: [] } };
const OPERATION_KEY = 'CONSTRAINT operation_client_id_fk FOREIGN KEY (client_id) REFERENCES client (id)';

/** Planner statistics after the load, as the built-in chain takes them. */
const TABLE_NAMES = ['country', 'city', 'street', 'address', 'client', 'operation'];
/**
 * Statistics of the tables the load filled, as the built-in takes them: not of the empty
 * `operation`, whose statistics would say "empty" and keep PostgreSQL on sequential scans of it
 * while the run fills it (the built-in's first run after a load did 3,006 of them for 4 index scans).
 */
const ANALYZED = TABLE_NAMES.filter((t) => t !== 'operation');

function analyze(dbms: string): string[] {
  if (dbms === 'postgres') return [`ANALYZE ${ANALYZED.join(', ')}`];
  if (dbms === 'mariadb') return [`ANALYZE TABLE ${ANALYZED.join(', ')}`];
  if (dbms === 'sqlite') return ANALYZED.map((t) => `ANALYZE ${t}`);
  // Firebird: every index's selectivity recomputed (an index declared before its rows says its table was empty).
  const names = ANALYZED.map((t) => `'${t.toUpperCase()}'`).join(', ');
  return [
    `EXECUTE BLOCK AS DECLARE name VARCHAR(63); BEGIN FOR SELECT TRIM(rdb$index_name) FROM rdb$indices WHERE rdb$relation_name IN (${names}) INTO :name DO EXECUTE STATEMENT 'SET STATISTICS INDEX ' || name; END`,
  ];
}

/** One generator per terminal for the whole run: a reconnect prepares again but must not restart it. */
const generators = new WeakMap<object, RefGenerator>();

export default defineWorkload({
  name: 'chain-module',
  description: 'the address-chain model through the public module API (all statements prepared)',
  scale: {
    help: 'fraction of the full data (12.5 M addresses): 1/1000 or 0.001',
    default: 0.001,
    parse(text) {
      const fraction = /^(\d+)\/(\d+)$/.exec(text);
      const value = fraction ? Number(fraction[1]) / Number(fraction[2]) : Number(text);
      if (!(value > 0 && value <= 1)) throw new Error(`-s ${text} is not a fraction of the full size`);
      return value;
    },
  },
  options: {
    mode: {
      type: 'string',
      help: 'distributed (each terminal its own stretch of clients) or localized (all the same clients)',
      default: 'distributed',
      choices: ['distributed', 'localized'],
    },
  },
  // The built-in chain's keys: each reference a foreign key, so a unit's insert into operation checks
  // its client as the built-in's does. MariaDB and Firebird index a foreign-key column themselves;
  // PostgreSQL and SQLite get the index the study added.
  tables: {
    country: { create: 'CREATE TABLE country (id INTEGER PRIMARY KEY, country_code VARCHAR(4), name VARCHAR(150))' },
    city: {
      create:
        'CREATE TABLE city (id INTEGER PRIMARY KEY, country_id INTEGER, name VARCHAR(150), CONSTRAINT city_country_id_fk FOREIGN KEY (country_id) REFERENCES country (id))',
      indexes: ['CREATE INDEX city_country_idx ON city (country_id)'],
      dialect: OWN_KEY_INDEXES,
    },
    street: {
      create:
        'CREATE TABLE street (id INTEGER PRIMARY KEY, city_id INTEGER, name VARCHAR(150), CONSTRAINT street_city_id_fk FOREIGN KEY (city_id) REFERENCES city (id))',
      indexes: ['CREATE INDEX street_city_idx ON street (city_id)'],
      dialect: OWN_KEY_INDEXES,
    },
    address: {
      create:
        'CREATE TABLE address (id INTEGER PRIMARY KEY, street_id INTEGER, flat INTEGER, building VARCHAR(5), house VARCHAR(5), CONSTRAINT address_street_id_fk FOREIGN KEY (street_id) REFERENCES street (id))',
      indexes: ['CREATE INDEX address_street_idx ON address (street_id)'],
      dialect: OWN_KEY_INDEXES,
    },
    client: {
      create:
        'CREATE TABLE client (id INTEGER PRIMARY KEY, address_id INTEGER, name VARCHAR(30), last_name VARCHAR(30), CONSTRAINT client_address_id_fk FOREIGN KEY (address_id) REFERENCES address (id))',
      indexes: ['CREATE INDEX client_address_idx ON client (address_id)', 'CREATE INDEX client_name_idx ON client (name)'],
      dialect: {
        mariadb: { indexes: ['CREATE INDEX client_name_idx ON client (name)'] },
        firebird: { indexes: ['CREATE INDEX client_name_idx ON client (name)'] },
      },
    },
    operation: {
      // Identity columns: PostgreSQL and Firebird 3 take the standard form; SQLite and MariaDB their own.
      create: `CREATE TABLE operation (id INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, summa INTEGER, client_id INTEGER, op_time TIMESTAMP, ${OPERATION_KEY})`,
      indexes: ['CREATE INDEX operation_client_idx ON operation (client_id)'],
      dialect: {
        sqlite: { create: `CREATE TABLE operation (id INTEGER PRIMARY KEY, summa INTEGER, client_id INTEGER, op_time TIMESTAMP, ${OPERATION_KEY})` },
        // DATETIME: a MariaDB TIMESTAMP column would move on every UPDATE of the row.
        mariadb: {
          create: `CREATE TABLE operation (id INTEGER AUTO_INCREMENT PRIMARY KEY, summa INTEGER, client_id INTEGER, op_time DATETIME, ${OPERATION_KEY}) ENGINE = InnoDB`,
          indexes: [],
        },
        firebird: { indexes: [] },
      },
    },
  },

  async load(ctx) {
    const n = sizes(ctx.scale);
    ctx.log(`${n.countries} countries, ${n.cities} cities, ${n.streets} streets, ${n.addresses} addresses, 3 x ${n.clientsPerBatch} clients`);
    // Each table starts a fresh reference generator and its own text seed, as the study's load does.
    const insert = (
      table: string,
      columns: string[],
      count: number,
      make: (refs: RefGenerator, random: Random) => (id: number) => SqlValue[],
      seed: number,
      first = 1,
    ) =>
      ctx.phase(`${table}${first > 1 ? ` from ${first}` : ''}`, () =>
        ctx.bulkInsert(table, columns, rows(count, first, make(ctx.referenceGenerator(), ctx.random(seed))), count),
      );
    await insert('country', ['id', 'country_code', 'name'], n.countries, (_, r) => (id) => [id, String(id % 10_000), printable(r, 150)], 1);
    await insert('city', ['id', 'country_id', 'name'], n.cities, (g, r) => (id) => [id, g.nextRef(n.countries), printable(r, 150)], 2);
    await insert('street', ['id', 'city_id', 'name'], n.streets, (g, r) => (id) => [id, g.nextRef(n.cities), printable(r, 150)], 3);
    await insert(
      'address',
      ['id', 'street_id', 'flat', 'building', 'house'],
      n.addresses,
      (g, r) => (id) => [id, g.nextRef(n.streets), id, printable(r, 5), String(id % 100_000)],
      4,
    );
    for (let batch = 0; batch < 3; batch++) {
      const client =
        (g: RefGenerator, r: Random) =>
        (id: number): SqlValue[] => [id, g.nextRef(n.addresses), printable(r, 30), printable(r, 30)];
      await insert('client', ['id', 'address_id', 'name', 'last_name'], n.clientsPerBatch, client, 5 + batch, batch * n.clientsPerBatch + 1);
    }
    await ctx.phase('analyze', async () => {
      for (const sql of analyze(ctx.dbms)) await ctx.conn.query(sql);
    });
  },

  transactions: {
    'model-unit': {
      weight: 1,
      async prepare(conn, t) {
        const clientCount = sizes(t.scale).clientsPerBatch;
        let refs = generators.get(t);
        if (refs === undefined) {
          // Distributed: terminal i starts where terminal i-1's stretch of clients ends.
          const [[existing]] = (await conn.query('SELECT COUNT(*) FROM operation')) as [[unknown]];
          const perTerminal = t.transactionsPerTerminal ?? Math.max(1, Math.floor(clientCount / t.terminals));
          refs = new RefGenerator(t.options.mode === 'localized' ? START_R : distributedStart(runStart(Number(existing)), t.terminal, perTerminal));
          generators.set(t, refs);
        }
        const generator = refs;
        const readClient = await conn.prepare(`SELECT ${COLUMNS} FROM client c ${CHAIN} WHERE c.id = ?`);
        const limit = t.dbms === 'firebird' ? 'ROWS 100' : 'LIMIT 100';
        const readOperations = await conn.prepare(
          `SELECT o.id, o.summa, o.op_time, ${COLUMNS} FROM operation o JOIN client c ON c.id = o.client_id ${CHAIN} WHERE o.client_id = ? ORDER BY o.id DESC ${limit}`,
        );
        const update = await conn.prepare('UPDATE operation SET summa = ? WHERE id = ?');
        const insert = await conn.prepare('INSERT INTO operation (summa, client_id, op_time) VALUES (?, ?, CURRENT_TIMESTAMP)');
        const { random } = t;
        return async () => {
          // A failed unit puts the generator back, so its retry takes the same client.
          const before = generator.state;
          try {
            const clientId = generator.nextRef(clientCount);
            await conn.begin();
            await readClient.all([clientId]);
            const operations = await readOperations.all([clientId]);
            const pos = random.int(0, 99);
            const row = operations[Math.min(pos, operations.length - 1)];
            if (row !== undefined) await update.run([pos + 20, Number(row[0])]);
            await insert.run([random.int(1, 1000), clientId]);
            await conn.commit();
          } catch (error) {
            generator.state = before;
            throw error;
          }
        };
      },
    },
  },

  async check(ctx) {
    const n = sizes(ctx.scale);
    const count = async (sql: string): Promise<number> => Number(((await ctx.conn.query(sql)) as [[unknown]])[0][0]);
    const results = [];
    for (const [table, expected] of [
      ['country', n.countries],
      ['city', n.cities],
      ['street', n.streets],
      ['address', n.addresses],
      ['client', 3 * n.clientsPerBatch],
    ] as const) {
      const actual = await count(`SELECT COUNT(*) FROM ${table}`);
      results.push({ name: `${table} rows`, ok: actual === expected, detail: `${actual} rows, expected ${expected}` });
    }
    const orphans = await count('SELECT COUNT(*) FROM operation o LEFT JOIN client c ON c.id = o.client_id WHERE c.id IS NULL');
    results.push({ name: 'operation -> client references resolve', ok: orphans === 0, detail: `${orphans} operations of a missing client` });
    const outside = await count(`SELECT COUNT(*) FROM operation WHERE client_id < 1 OR client_id >= ${n.clientsPerBatch}`);
    results.push({ name: 'operations on first-batch clients', ok: outside === 0, detail: `${outside} operations outside 1..${n.clientsPerBatch - 1}` });
    const summa = await count('SELECT COUNT(*) FROM operation WHERE summa IS NULL OR summa < 1 OR summa > 1000');
    results.push({ name: 'summa in range', ok: summa === 0, detail: `${summa} operations with summa outside 1..1000` });
    return results;
  },

  // A bank of 10 M clients making 2 operations a day, one unit each (the study's bank).
  demand: { event: 'bank operation', transactionsPerEvent: 1, eventsPerDay: 20_000_000, peakFactor: 3 },
});
