/**
 * The text New-Order's procedure raises at the unused item id (2.4.2.3). The terminal recognises
 * it, rolls the transaction back and counts it as rolled back, not as a failure.
 */
export const UNUSED_ITEM_SIGNAL = 'headroom tpcc: unused item, New-Order rolled back';

export function isUnusedItemSignal(error: unknown): boolean {
  return error instanceof Error && error.message.includes(UNUSED_ITEM_SIGNAL);
}
