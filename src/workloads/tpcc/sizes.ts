/** Cardinalities of clause 1.2 / 4.3.3.1: the initial database per warehouse, and items overall. */
export const ITEMS = 100_000;
export const STOCK_PER_WAREHOUSE = ITEMS;
export const DISTRICTS_PER_WAREHOUSE = 10;
export const CUSTOMERS_PER_DISTRICT = 3_000;
export const ORDERS_PER_DISTRICT = 3_000;
/** Orders 2101..3000 of each district are undelivered: they are the 900 new-orders. */
export const FIRST_NEW_ORDER = 2_101;
export const NEW_ORDERS_PER_DISTRICT = ORDERS_PER_DISTRICT - FIRST_NEW_ORDER + 1;
/** Customers 1..1000 take last names 0..999 in turn; the rest NURand (4.3.3.1). */
export const CUSTOMERS_NAMED_IN_TURN = 1_000;
export const MIN_ORDER_LINES = 5;
export const MAX_ORDER_LINES = 15;
