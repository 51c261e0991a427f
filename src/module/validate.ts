import { UserError } from '../errors.js';
import { WORKLOAD_MARK, type WorkloadDefinition } from './api.js';

const DBMSS = ['sqlite', 'postgres', 'mariadb', 'firebird'];
const NAME = /^[a-z][a-z0-9-]{0,31}$/;
const OPTION_NAME = /^[a-z][a-z0-9-]*$/;
const OPTION_TYPES = ['integer', 'number', 'string', 'boolean'];

/**
 * Checks a module's default export before anything runs: one error naming the first thing that is
 * wrong, as a path into the definition (`transactions.book.weight must be a whole number >= 0`).
 */
export function validateDefinition(file: string, value: unknown, reserved: readonly string[], reservedOptions: readonly string[]): WorkloadDefinition {
  const fail = (what: string, hint = 'see the README, "Your own workload", or: headroom new workload NAME'): never => {
    throw new UserError(`${file}: ${what}`, hint);
  };
  if (value === undefined) fail('has no default export', 'end the module with: export default defineWorkload({ ... })');
  if (typeof value !== 'object' || value === null)
    fail(`its default export is a ${value === null ? 'null' : typeof value}, not a workload`, 'export default defineWorkload({ ... })');
  const def = value as Record<string | symbol, unknown>;
  if (def[WORKLOAD_MARK] !== true)
    fail('its default export was not made with defineWorkload()', "import { defineWorkload } from 'headroom-oltp' and export default defineWorkload({ ... })");
  const str = (path: string, v: unknown): void => void (typeof v !== 'string' || v.trim() === '' ? fail(`${path} must be a non-empty string`) : undefined);
  const fn = (path: string, v: unknown): void => void (typeof v !== 'function' ? fail(`${path} must be a function, got ${describe(v)}`) : undefined);
  const obj = (path: string, v: unknown): Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : fail(`${path} must be an object, got ${describe(v)}`);

  str('name', def['name']);
  const name = def['name'] as string;
  if (!NAME.test(name)) fail(`name "${name}" must be lower case letters, digits and dashes, starting with a letter, at most 32 characters`);
  if (reserved.includes(name)) fail(`name "${name}" is a built-in workload's`, 'give the module a name of its own');
  str('description', def['description']);
  if (def['runsOn'] !== undefined) {
    if (!Array.isArray(def['runsOn']) || def['runsOn'].length === 0) fail('runsOn must be a non-empty list of DBMS names');
    for (const d of def['runsOn'] as unknown[]) if (!DBMSS.includes(d as string)) fail(`runsOn: "${String(d)}" is not one of ${DBMSS.join(', ')}`);
  }
  if (def['scale'] !== undefined) {
    const scale = obj('scale', def['scale']);
    str('scale.help', scale['help']);
    if (typeof scale['default'] !== 'number' || !(scale['default'] > 0)) fail('scale.default must be a number above 0');
    if (scale['parse'] !== undefined) fn('scale.parse', scale['parse']);
  }
  for (const [key, option] of Object.entries(def['options'] === undefined ? {} : obj('options', def['options']))) {
    const path = `options.${key}`;
    if (!OPTION_NAME.test(key)) fail(`${path}: an option name is lower case letters, digits and dashes`);
    if (reservedOptions.includes(key)) fail(`${path}: --${key} is one of headroom's own options`, 'give the option another name');
    const o = obj(path, option);
    if (!OPTION_TYPES.includes(o['type'] as string)) fail(`${path}.type must be one of ${OPTION_TYPES.join(', ')}`);
    str(`${path}.help`, o['help']);
    const expected = o['type'] === 'integer' || o['type'] === 'number' ? 'number' : o['type'] === 'string' ? 'string' : 'boolean';
    if (o['default'] === undefined ? expected !== 'boolean' : typeof o['default'] !== expected) fail(`${path}.default must be a ${expected}`);
    if (o['type'] === 'integer' && !Number.isInteger(o['default'])) fail(`${path}.default must be a whole number`);
  }
  const tables = Object.entries(obj('tables', def['tables']));
  if (tables.length === 0) fail('tables must name at least one table');
  for (const [table, spec] of tables) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) fail(`tables: "${table}" is not a plain SQL table name`);
    const t = obj(`tables.${table}`, spec);
    str(`tables.${table}.create`, t['create']);
    if (t['indexes'] !== undefined && !(Array.isArray(t['indexes']) && t['indexes'].every((s) => typeof s === 'string')))
      fail(`tables.${table}.indexes must be a list of statements`);
    if (t['dialect'] !== undefined)
      for (const d of Object.keys(obj(`tables.${table}.dialect`, t['dialect'])))
        if (!DBMSS.includes(d)) fail(`tables.${table}.dialect: "${d}" is not one of ${DBMSS.join(', ')}`);
  }
  fn('load', def['load']);
  const transactions = Object.entries(obj('transactions', def['transactions']));
  if (transactions.length === 0) fail('transactions must hold at least one transaction type');
  for (const [type, spec] of transactions) {
    const t = obj(`transactions.${type}`, spec);
    if (!Number.isInteger(t['weight']) || (t['weight'] as number) < 0)
      fail(`transactions.${type}.weight must be a whole number >= 0, got ${describe(t['weight'])}`);
    fn(`transactions.${type}.prepare`, t['prepare']);
  }
  if (transactions.every(([, t]) => (t as { weight: number }).weight === 0)) fail('transactions: at least one weight must be above 0');
  if (def['check'] !== undefined) fn('check', def['check']);
  if (def['demand'] !== undefined) {
    const demand = obj('demand', def['demand']);
    str('demand.event', demand['event']);
    const per = demand['transactionsPerEvent'];
    if (typeof per === 'number') {
      if (!(per > 0)) fail('demand.transactionsPerEvent must be above 0');
    } else {
      for (const [type, count] of Object.entries(obj('demand.transactionsPerEvent', per))) {
        if (!transactions.some(([t]) => t === type))
          fail(`demand.transactionsPerEvent: "${type}" is not one of the transactions (${transactions.map(([t]) => t).join(', ')})`);
        if (typeof count !== 'number' || !(count >= 0)) fail(`demand.transactionsPerEvent.${type} must be a number >= 0`);
      }
    }
    for (const key of ['eventsPerDay', 'peakFactor', 'scale'])
      if (demand[key] !== undefined && !(typeof demand[key] === 'number' && demand[key] > 0)) fail(`demand.${key} must be a number above 0`);
  }
  return def as unknown as WorkloadDefinition;
}

function describe(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'string' ? `"${v}"` : typeof v === 'number' ? String(v) : typeof v;
}
