import type { Connection, DbmsName } from '../../drivers/driver.js';
import type { OptionValues } from '../../config/options.js';
import type { TransactionType } from '../workload.js';
import { chainDialect } from './dialect.js';
import { chainSizes } from './sizes.js';
import { terminalGenerator } from './terminal-start.js';
import { studyStatements, type StatementStyle, type UnitStatements } from './statements.js';

const CHAIN_COLUMNS = 'c.id, c.name, c.last_name, a.flat, a.building, a.house, s.name, ci.name, co.country_code, co.name';
const CHAIN_JOINS = `LEFT JOIN address a ON a.id = c.address_id
  LEFT JOIN street s ON s.id = a.street_id
  LEFT JOIN city ci ON ci.id = s.city_id
  LEFT JOIN country co ON co.id = ci.country_id`;

/** Step 2: the client with its whole address chain. */
export const READ_CLIENT = `SELECT ${CHAIN_COLUMNS} FROM client c ${CHAIN_JOINS} WHERE c.id = ?`;
/** Step 3: the client's 100 latest operations, each joined with the client and the chain. */
export function readOperationsSql(dbms: DbmsName): string {
  return `SELECT o.id, o.summa, o.op_time, ${CHAIN_COLUMNS} FROM operation o JOIN client c ON c.id = o.client_id ${CHAIN_JOINS}
  WHERE o.client_id = ? ORDER BY o.id DESC ${chainDialect(dbms).latestHundred.toUpperCase()}`;
}

/** The prepared style: all four statements prepared once per terminal, BEGIN its own round trip. */
async function preparedStatements(conn: Connection, dbms: DbmsName): Promise<UnitStatements> {
  const readClient = await conn.prepare(READ_CLIENT);
  const readOperations = await conn.prepare(readOperationsSql(dbms));
  const updateOperation = await conn.prepare('UPDATE operation SET summa = ? WHERE id = ?');
  const insertOperation = await conn.prepare('INSERT INTO operation (summa, client_id, op_time) VALUES (?, ?, CURRENT_TIMESTAMP)');
  return {
    readClient: (clientId) => conn.begin().then(() => readClient.all([clientId])),
    readOperations: (clientId) => readOperations.all([clientId]),
    updateOperation: (summa, operationId) => updateOperation.run([summa, operationId]),
    insertOperation: (summa, clientId) => insertOperation.run([summa, clientId]),
    commit: () => conn.commit(),
  };
}

/** --statements as the terminal's options give it; the study's sending unless asked otherwise. */
export function statementStyle(options: OptionValues): StatementStyle {
  return options['statements'] === 'prepared' ? 'prepared' : 'study';
}

/**
 * The study's unit of work (chain-model.md, "The model transaction"), steps 1-6: draw the client
 * from the terminal's reference generator, read it with its chain, read its latest operations,
 * update the pos-th of them, insert a new operation, commit. How each statement is sent is the
 * style's (statements.ts); what the unit does is the same for both.
 */
export const modelUnit: TransactionType = {
  name: 'model-unit',
  weight: 1,
  async prepare(conn, terminal) {
    // The study draws clients from the first batch only, not all three.
    const clientCount = chainSizes(terminal.scale).clientsPerBatch;
    // Before the study style's autocommit=0 on MariaDB, so that this count is not left in a transaction.
    const refs = await terminalGenerator(conn, terminal);
    const send = statementStyle(terminal.options) === 'prepared' ? await preparedStatements(conn, terminal.dbms) : await studyStatements(conn, terminal.dbms);
    const { random } = terminal;
    return async () => {
      // A unit that fails is not done: the generator goes back so its retry (or the next unit)
      // takes the same client, as the engine replays the same random values on a retry.
      const before = refs.state;
      try {
        const clientId = refs.nextRef(clientCount);
        await send.readClient(clientId);
        const operations = await send.readOperations(clientId);
        const pos = random.int(0, 99);
        const row = operations[Math.min(pos, operations.length - 1)];
        if (row !== undefined) await send.updateOperation(pos + 20, Number(row[0]));
        await send.insertOperation(random.int(1, 1000), clientId);
        await send.commit();
      } catch (error) {
        refs.state = before;
        throw error;
      }
    };
  },
};
