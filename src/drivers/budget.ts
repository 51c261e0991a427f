import type { ConnectionBudget } from './driver.js';

/** Of the limits a new connection is held to, the one with the fewest free places: it refuses first. */
export function tightest(budgets: readonly ConnectionBudget[]): ConnectionBudget {
  return budgets.reduce((best, budget) => (budget.max - budget.inUse < best.max - best.inUse ? budget : best));
}
