import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BANK, SHOP, bankUnitsPerSecond, shopUnitsPerSecond } from '../../src/capacity/demand.js';
import { planCapacity } from '../../src/capacity/plan.js';

test("the study's bank needs 20 M / 86,400 = about 232 units/s", () => {
  assert.equal(bankUnitsPerSecond(BANK), 20_000_000 / 86_400);
  assert.equal(Math.round(bankUnitsPerSecond(BANK)), 231);
  assert.equal(bankUnitsPerSecond({ clients: 86_400, operationsPerClientPerDay: 1 }), 1);
});

test("the study's shop needs 27 x (4 + 20) = 648 units/s with buyers alone, about 6,050 with browsers", () => {
  assert.equal(shopUnitsPerSecond({ ...SHOP, browseOnlyVisitsPerPurchase: 0 }), 648);
  assert.equal(shopUnitsPerSecond(SHOP), 540 * 10 + 648);
  assert.equal(Math.round(shopUnitsPerSecond(SHOP) / 50) * 50, 6_050);
});

test("headroom and machines: the study's MariaDB 9,530 units/s is about 41x the bank", () => {
  const bank = planCapacity(bankUnitsPerSecond(BANK), 9_530, 1, 1);
  assert.equal(bank.headroom.toFixed(1), '41.2');
  assert.equal(bank.machines, 1);
  // PostgreSQL's 2,030 units/s carry the shop's 6,048 at peak x2 and 70% on ceil(12,096 / 1,421) machines.
  const shop = planCapacity(shopUnitsPerSecond(SHOP), 2_030, 2, 0.7);
  assert.equal(shop.peakUnitsPerSecond, 12_096);
  assert.equal(shop.machines, Math.ceil(12_096 / (2_030 * 0.7)));
  assert.equal(shop.machines, 9);
});
