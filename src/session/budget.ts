import type { ConnectionBudget } from '../drivers/driver.js';
import { UserError } from '../errors.js';
import { openFilesLimit, openFilesNow } from '../common/proc.js';
import type { Session } from './session.js';

/**
 * Why the server's connection budget cannot take `clients` more, or undefined when it can.
 * `needs` names what asks for them (-c 8, query 5 of the experiment); `offerForce` adds --force
 * to the hint where the command honours it (headroom run).
 */
export function budgetRefusal(
  budget: ConnectionBudget | undefined,
  clients: number,
  needs = `-c ${clients}`,
  offerForce = true,
): { message: string; hint: string } | undefined {
  if (!budget || clients <= budget.max - budget.inUse) return undefined;
  const free = budget.max - budget.inUse;
  const raise = budget.raise === undefined ? 'raise max_connections' : `raise the limit (${budget.raise})`;
  return {
    message: `the server accepts ${free} more connections (${budget.limit ?? 'max_connections'} ${budget.max}, ${budget.inUse} in use), but ${needs} needs ${clients}`,
    hint: offerForce
      ? `use -c ${Math.max(1, free)} or less, ${raise}, or --force to run with what the server accepts`
      : `use -c ${Math.max(1, free)} or less, or ${raise}`,
  };
}

/**
 * Refuses more clients than the server accepts, before anything is loaded or run (headroom run and
 * the experiments); returns the budget it read.
 */
export async function checkClients(session: Session, clients: number, needs: string, offerForce = false): Promise<ConnectionBudget | undefined> {
  const budget = await session.driver.connectionBudget(session.conn);
  const refusal = budgetRefusal(budget, clients, needs, offerForce);
  if (refusal) throw new UserError(refusal.message, refusal.hint);
  return budget;
}

/** How long the server's backends may take to go once their clients closed them. */
const BUDGET_SETTLE_MS = 3_000;

/**
 * The server's connection budget, asked again every 250 ms for up to 3 s while it has fewer free
 * places than `freeBefore` (read before a load or a sweep's first step), or `enough` says no: a
 * server counts a connection until its backend has gone, a moment after the client closed it, so
 * the terminals that follow a load's extra connections (tpcc's loaders) or a sweep's step would
 * otherwise be refused places those still held. Returns the last budget read, settled or not.
 */
export async function settledBudget(
  session: Pick<Session, 'driver' | 'conn'>,
  signal: AbortSignal,
  freeBefore: number | undefined,
  enough: (budget: ConnectionBudget) => boolean = () => true,
): Promise<ConnectionBudget | undefined> {
  const until = performance.now() + BUDGET_SETTLE_MS;
  for (;;) {
    const budget = await session.driver.connectionBudget(session.conn);
    const settled = !budget || (budget.max - budget.inUse >= (freeBefore ?? 0) && enough(budget));
    if (settled || performance.now() >= until || signal.aborted) return budget;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Refuses more terminals than this process may open files for (each holds a connection: a socket,
 * or SQLite's file), before anything is loaded, as pgbench checks its clients against the limit;
 * else the run would fail midway at the first connection past it.
 */
export function checkOpenFiles(clients: number, needsWhat = `-c ${clients}`): void {
  const limit = openFilesLimit();
  if (limit === undefined) return;
  const needs = clients + (openFilesNow() ?? 3);
  if (needs > limit) {
    throw new UserError(
      `${needsWhat} needs at least ${needs} open files, but this process may open ${limit}`,
      'use fewer clients, or raise the limit (ulimit -n) before running headroom',
    );
  }
}
