import { CLIENT_BATCHES, chainSizes } from '../workloads/chain/sizes.js';

const CACHES = (business: string): string => `a database that small stays in caches the ${business}'s would not, so this headroom is likely too high`;

/** Below this share of the business's data, a plan warns that the run measured a much smaller database. */
const SMALL_DATA = 0.1;

/**
 * A warning when the chain run's data is far smaller than the business planned for: a small
 * database sits in caches a real one would not, so its units/s overstate what the business's
 * database would give. `bankClients`: the bank's clients; undefined for the shop, which is
 * measured against the study's full size.
 */
export function smallDataWarning(scale: number, bankClients: number | undefined): string | undefined {
  const runClients = CLIENT_BATCHES * chainSizes(scale).clientsPerBatch;
  if (bankClients !== undefined) {
    if (runClients >= bankClients * SMALL_DATA) return undefined;
    const sizes = `the run's data holds ${runClients.toLocaleString('en-US')} clients (scale ${scale}), the bank ${bankClients.toLocaleString('en-US')}`;
    return `warning: ${sizes}: ${CACHES('bank')}; measure at a scale nearer the bank's (-s)`;
  }
  if (scale >= SMALL_DATA) return undefined;
  return `warning: the run's data is ${scale} of the study's full size (${runClients.toLocaleString('en-US')} clients): ${CACHES('shop')}; measure at a scale nearer full (-s)`;
}

/**
 * The same warning for any workload whose business is given as a scale (a module's demand.scale,
 * or plan --demand-scale): a run at under a tenth of it measured a database that stays in caches.
 */
export function smallScaleWarning(runScale: number, businessScale: number): string | undefined {
  if (runScale >= businessScale * SMALL_DATA) return undefined;
  return `warning: the run's data is at scale ${runScale}, the business's at ${businessScale}: ${CACHES('business')}; measure at a scale nearer the business's (-s)`;
}
