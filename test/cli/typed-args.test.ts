import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs } from '../../src/config/args.js';
import { defineOptions, type OptionValuesOf } from '../../src/config/options.js';
import { RUN_OPTIONS } from '../../src/cli/run.js';
import { CHECK_OPTIONS, DROP_OPTIONS, INIT_OPTIONS } from '../../src/cli/data-verbs.js';
import { PLAN_OPTIONS } from '../../src/cli/plan.js';
import { COMPARE_OPTIONS, REPORT_OPTIONS } from '../../src/cli/report.js';
import { AGENT_OPTIONS } from '../../src/cli/agent.js';
import { K8S_OPTIONS } from '../../src/cli/k8s.js';
import { NEW_OPTIONS } from '../../src/cli/new-workload.js';
import { RESTORE_SETTINGS_OPTIONS } from '../../src/cli/restore-settings.js';
import { PEAK_OPTIONS } from '../../src/experiments/peak.js';
import { GROWTH_OPTIONS } from '../../src/experiments/growth.js';
import { CHAIN_STUDY_OPTIONS } from '../../src/experiments/chain-study.js';
import { DEAD_ROWS_OPTIONS } from '../../src/experiments/dead-rows-command.js';
import { workloadOptionSpecs } from '../../src/session/options.js';
import { parseVerbArgs } from '../../src/cli/common.js';

// Compile-time checks: this file does not build when the typing of options regresses.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** A list with a spec whose name lost its literal type reads any name: its values get a string index. */
type NamesKnown<Values> = string extends keyof Values ? false : true;

const SPECS = defineOptions([
  { long: 'clients', short: 'c', type: 'integer', min: 1, help: 'terminals', default: 1 },
  { long: 'rate', short: 'R', type: 'number', help: 'rate' },
  { long: 'verbose', type: 'boolean', help: 'v' },
  { long: 'observe', type: 'boolean', help: 'o', default: true },
  { long: 'builtin', short: 'b', type: 'strings', help: 'mix', default: ['tpcb-like'] },
  { long: 'set', type: 'strings', help: 'settings' },
  { long: 'mode', type: 'string', choices: ['a', 'b'], help: 'm', default: 'a' },
  { long: 'out', short: 'o', type: 'string', help: 'file' },
]);
type Values = OptionValuesOf<typeof SPECS>;

const typed: [
  Equal<Values['clients'], number>,
  Equal<Values['rate'], number | undefined>,
  Equal<Values['verbose'], boolean | undefined>,
  Equal<Values['observe'], boolean>,
  Equal<Values['builtin'], string[]>,
  Equal<Values['set'], string[] | undefined>,
  Equal<Values['mode'], 'a' | 'b'>,
  Equal<Values['out'], string | undefined>,
  Equal<keyof Values, 'clients' | 'rate' | 'verbose' | 'observe' | 'builtin' | 'set' | 'mode' | 'out'>,
] = [true, true, true, true, true, true, true, true, true];

// Every verb's and experiment's list keeps its names: a misspelt read is an error in each.
const namesKnown: [
  NamesKnown<OptionValuesOf<typeof RUN_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof INIT_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof CHECK_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof DROP_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof PLAN_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof REPORT_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof COMPARE_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof AGENT_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof K8S_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof NEW_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof RESTORE_SETTINGS_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof PEAK_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof GROWTH_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof CHAIN_STUDY_OPTIONS>>,
  NamesKnown<OptionValuesOf<typeof DEAD_ROWS_OPTIONS>>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];

test('the types above hold (they are checked when this file compiles)', () => {
  assert.ok(typed.every((t) => t));
  assert.equal(namesKnown.length, 15);
});

test('a misspelt option name does not compile', async () => {
  const { values } = parseArgs([], SPECS, 'run');
  // @ts-expect-error: 'client' is not an option of SPECS
  assert.equal(values['client'], undefined);
  const run = parseArgs([], RUN_OPTIONS, 'run').values;
  // @ts-expect-error: run has --max-tries, not --max-retries
  assert.equal(run['max-retries'], undefined);
  const growth = parseArgs([], GROWTH_OPTIONS, 'experiment growth').values;
  // @ts-expect-error: growth's load is --workload, not --workloads
  assert.equal(growth['workloads'], undefined);
  const init = (await parseVerbArgs(['kv'], 'init', INIT_OPTIONS)).values;
  // @ts-expect-error: init has --scale, not --scales
  assert.equal(init['scales'], undefined);
});

test('parsed values have their type and their default', () => {
  const { values } = parseArgs(['-c', '8', '--rate=2.5', '--set', 'a=1', '--set', 'b=2', '--mode', 'b'], SPECS, 'run');
  assert.equal(values.clients, 8);
  assert.equal(values.rate, 2.5);
  assert.deepEqual(values.set, ['a=1', 'b=2']);
  assert.equal(values.mode, 'b');
  assert.equal(values.verbose, undefined);
  assert.equal(values.observe, true);
  assert.deepEqual(values.builtin, ['tpcb-like']);
  assert.equal(values.out, undefined);

  const run = parseArgs(['-j', '2', '-T', '5', '--observe=false', '--i-accept-data-loss'], RUN_OPTIONS, 'run').values;
  assert.equal(run.jobs, 2);
  assert.equal(run.time, 5);
  assert.equal(run.observe, false);
  assert.equal(run['i-accept-data-loss'], true);
  assert.equal(run.clients, '1');
  assert.equal(run['max-tries'], 1);
  assert.equal(run.protocol, 'prepared');
  assert.equal(run.route, 'none');
  assert.equal(run['on-agent-loss'], 'continue');
  assert.equal(run['agent-wait'], 60);
  assert.equal(run['nats-subject'], 'headroom');
  assert.equal(run.transactions, undefined);
  assert.equal(run.set, undefined);

  const growth = parseArgs(['-c', '4'], GROWTH_OPTIONS, 'experiment growth').values;
  assert.equal(growth.clients, 4);
  assert.equal(growth.workload, 'tpcc');
  assert.equal(growth.scale, '1,2,4');
  assert.equal(growth['max-tries'], 10);
  assert.equal(growth.out, undefined);
});

test("the workloads' own options are parsed with the declared ones and read through the untyped bag", () => {
  const { values, all, given } = parseArgs(['-b', 'select-only', '-c', '3'], RUN_OPTIONS, 'run', workloadOptionSpecs());
  assert.equal(values.clients, '3');
  assert.deepEqual(all['builtin'], ['select-only']);
  assert.deepEqual([...given].sort(), ['builtin', 'clients']);
  // Without the extra specs, a workload's option is unknown, as before.
  assert.throws(() => parseArgs(['-b', 'select-only'], RUN_OPTIONS, 'run'), /unknown option -b for "headroom run"/);
});
