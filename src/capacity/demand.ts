/**
 * Required model units per second for the study's two businesses (docs/chain-model.md, "From
 * throughput to headroom").
 */

export const SECONDS_PER_DAY = 86_400;

export interface BankDemand {
  clients: number;
  operationsPerClientPerDay: number;
}

export interface ShopDemand {
  ordersPerSecond: number;
  itemsPerOrder: number;
  /** Result pages a buyer browses per purchase, one read-heavy unit each. */
  pagesPerPurchase: number;
  /** Visits that browse as much without buying, per purchase. */
  browseOnlyVisitsPerPurchase: number;
}

/** The study's bank: 10 M clients, 2 operations each a day, about 232 units/s. */
export const BANK: BankDemand = { clients: 10_000_000, operationsPerClientPerDay: 2 };

/** The study's marketplace: 27 orders/s of 3 items, 20 pages per purchase, 10 browse-only visits, about 6,050 units/s. */
export const SHOP: ShopDemand = { ordersPerSecond: 27, itemsPerOrder: 3, pagesPerPurchase: 20, browseOnlyVisitsPerPurchase: 10 };

/** One unit per operation, spread evenly over the day. */
export function bankUnitsPerSecond(demand: BankDemand): number {
  return (demand.clients * demand.operationsPerClientPerDay) / SECONDS_PER_DAY;
}

/**
 * An order of k items is k + 1 write units; each browsed page is one unit; browse-only visits
 * add their pages on top: orders x (items + 1 + pages) + orders x pages x visits.
 */
export function shopUnitsPerSecond(demand: ShopDemand): number {
  const perPurchase = demand.itemsPerOrder + 1 + demand.pagesPerPurchase;
  const browsing = demand.pagesPerPurchase * demand.browseOnlyVisitsPerPurchase;
  return demand.ordersPerSecond * (perPurchase + browsing);
}
