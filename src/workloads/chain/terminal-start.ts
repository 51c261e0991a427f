import type { Connection } from '../../drivers/driver.js';
import type { OptionValues } from '../../config/options.js';
import type { DataContext, TerminalContext } from '../workload.js';
import { RefGenerator, START_R, distributedStart, runStart } from './generator.js';
import { chainSizes } from './sizes.js';

export type TerminalMode = 'distributed' | 'localized';

function terminalMode(options: OptionValues): TerminalMode {
  return options['mode'] === 'localized' ? 'localized' : 'distributed';
}

/**
 * Units per terminal (n of chain-model.md, "Runs"): -t when given; under -T, where n is not known
 * in advance, the study's own split of one client batch among the terminals.
 */
export function unitsPerTerminal(terminal: Pick<TerminalContext, 'scale' | 'terminals' | 'transactionsPerTerminal'>): number {
  return terminal.transactionsPerTerminal ?? Math.max(1, Math.floor(chainSizes(terminal.scale).clientsPerBatch / terminal.terminals));
}

/**
 * Where a terminal's generator starts. Localized: every terminal at startR (same clients in the
 * same order). Distributed: terminal i at s_i, s_0 = startR on the first run and
 * shift(existing operations) on later ones, s_{i+1} = s_i * shift(n) mod p.
 */
export function terminalStart(
  mode: TerminalMode,
  terminal: Pick<TerminalContext, 'terminal' | 'scale' | 'terminals' | 'transactionsPerTerminal'>,
  existingOperations: number,
): number {
  if (mode === 'localized') return START_R;
  return distributedStart(runStart(existingOperations), terminal.terminal, unitsPerTerminal(terminal));
}

/** The key of chain's runStart figures (TerminalContext.runStart): operations in the table before the run. */
export const EXISTING_OPERATIONS = 'existingOperations';

async function countOperations(conn: Connection): Promise<number> {
  const [[count]] = (await conn.query('SELECT COUNT(*) FROM operation')) as [[unknown]];
  return Number(count);
}

/**
 * Workload.runStart: the count of existing operations, taken once per run (chain-model.md,
 * "Runs") instead of once by each of the 33 or 150 terminals inside the measured time.
 */
export async function chainRunStart(ctx: Pick<DataContext, 'conn' | 'options'>): Promise<Record<string, number>> {
  // Localized terminals all start at startR whatever the count.
  if (terminalMode(ctx.options) === 'localized') return {};
  return { [EXISTING_OPERATIONS]: await countOperations(ctx.conn) };
}

/** One generator per terminal for the whole run: a reconnect prepares again but must not restart it. */
const generators = new WeakMap<TerminalContext, RefGenerator>();

export async function terminalGenerator(conn: Connection, terminal: TerminalContext): Promise<RefGenerator> {
  let generator = generators.get(terminal);
  if (generator === undefined) {
    const mode = terminalMode(terminal.options);
    // The run's count where it was read once before the terminals; else (a caller without the
    // session pipeline) this terminal counts for itself.
    const existing = mode === 'localized' ? 0 : (terminal.runStart?.[EXISTING_OPERATIONS] ?? (await countOperations(conn)));
    generator = new RefGenerator(terminalStart(mode, terminal, existing));
    generators.set(terminal, generator);
  }
  return generator;
}
