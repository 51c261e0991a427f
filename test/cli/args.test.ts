import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs } from '../../src/config/args.js';
import type { OptionSpec } from '../../src/config/options.js';
import { UserError } from '../../src/errors.js';

const SPECS: OptionSpec[] = [
  { long: 'clients', short: 'c', type: 'integer', min: 1, help: 'terminals', default: 1 },
  { long: 'rate', short: 'R', type: 'number', help: 'rate' },
  { long: 'verbose', type: 'boolean', help: 'v' },
  { long: 'builtin', short: 'b', type: 'strings', help: 'mix', default: ['tpcb-like'] },
  { long: 'mode', type: 'string', choices: ['a', 'b'], help: 'm' },
];

test('short, long, attached and inline values all parse the same way', () => {
  for (const argv of [['-c', '8'], ['-c8'], ['--clients', '8'], ['--clients=8']]) {
    assert.equal(parseArgs(argv, SPECS, 'run').values['clients'], 8);
  }
});

test('defaults fill in what is not given; given names are reported apart', () => {
  const { values, given, positionals } = parseArgs(['tpcb', '--verbose', '-R', '2.5'], SPECS, 'run');
  assert.deepEqual(positionals, ['tpcb']);
  assert.equal(values['clients'], 1);
  assert.equal(values['rate'], 2.5);
  assert.equal(values['verbose'], true);
  assert.deepEqual([...given].sort(), ['rate', 'verbose']);
  assert.deepEqual(values['builtin'], ['tpcb-like']);
});

test('repeatable options collect every value instead of the default', () => {
  assert.deepEqual(parseArgs(['-b', 'select-only@9', '-b', 'tpcb-like'], SPECS, 'run').values['builtin'], ['select-only@9', 'tpcb-like']);
});

test('bad input names the option and the way to help', () => {
  const cases: [string[], RegExp][] = [
    [['--nope'], /unknown option --nope for "headroom run"/],
    [['-x'], /unknown option -x/],
    [['-c'], /--clients needs a value/],
    [['-c', 'many'], /--clients needs a whole number, not "many"/],
    [['-c', '2.5'], /whole number/],
    [['-c', '0'], /--clients must be at least 1/],
    [['--mode', 'c'], /--mode must be one of a, b/],
    [['--verbose=yes'], /--verbose takes no value/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(
      () => parseArgs(argv, SPECS, 'run'),
      (e: unknown) => e instanceof UserError && message.test(e.message) && e.hint === 'see: headroom run --help',
      argv.join(' '),
    );
  }
});

test('negative numbers are values, and -- ends the options', () => {
  assert.equal(parseArgs(['--rate', '-1'], SPECS, 'run').values['rate'], -1);
  assert.deepEqual(parseArgs(['--', '-c'], SPECS, 'run').positionals, ['-c']);
});
