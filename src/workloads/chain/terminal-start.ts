import type { Connection } from '../../drivers/driver.js';
import type { TerminalContext } from '../workload.js';
import { RefGenerator, START_R, distributedStart, runStart } from './generator.js';
import { chainSizes } from './sizes.js';

export type TerminalMode = 'distributed' | 'localized';

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

/** One generator per terminal for the whole run: a reconnect prepares again but must not restart it. */
const generators = new WeakMap<TerminalContext, RefGenerator>();

export async function terminalGenerator(conn: Connection, terminal: TerminalContext): Promise<RefGenerator> {
  let generator = generators.get(terminal);
  if (generator === undefined) {
    const mode: TerminalMode = terminal.options['mode'] === 'localized' ? 'localized' : 'distributed';
    const [[count]] = (await conn.query('SELECT COUNT(*) FROM operation')) as [[unknown]];
    generator = new RefGenerator(terminalStart(mode, terminal, Number(count)));
    generators.set(terminal, generator);
  }
  return generator;
}
