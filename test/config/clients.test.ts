import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SWEEP_STEPS, parseClientSteps } from '../../src/config/clients.js';
import { UserError } from '../../src/errors.js';

test('-c takes one count, a rising list, an additive range or a multiplicative range', () => {
  assert.deepEqual(parseClientSteps('8'), [8]);
  assert.deepEqual(parseClientSteps('10,20,40'), [10, 20, 40]);
  assert.deepEqual(
    parseClientSteps('10:200:10'),
    Array.from({ length: 20 }, (_, i) => 10 * (i + 1)),
  );
  assert.deepEqual(parseClientSteps('10:60:10'), [10, 20, 30, 40, 50, 60]);
  assert.deepEqual(parseClientSteps('1:256:x2'), [1, 2, 4, 8, 16, 32, 64, 128, 256]);
  // The end bounds the range; it is not added when a step does not land on it.
  assert.deepEqual(parseClientSteps('1:100:x2'), [1, 2, 4, 8, 16, 32, 64]);
  assert.deepEqual(parseClientSteps('5:17:5'), [5, 10, 15]);
  // Each step is the previous one times the factor, rounded, and at least one more.
  assert.deepEqual(parseClientSteps('1:10:x1.5'), [1, 2, 3, 5, 8]);
  assert.deepEqual(parseClientSteps('4:4:1'), [4]);
});

test('bad -c forms are one-line errors that say what is wrong', () => {
  const cases: [string, RegExp][] = [
    ['10:5:1', /^-c 10:5:1: the end 5 is below the start 10$/],
    ['0,1', /^-c 0,1: every count of clients must be at least 1, not 0$/],
    ['1:8:x1', /^-c 1:8:x1: the factor must be more than 1, not 1$/],
    ['1:8:x', /the factor "x" is not a number/],
    ['1:8:0', /the step must be at least 1, not 0/],
    ['1:8', /a range has three parts/],
    ['10,5', /list the counts in rising order \(5 after 10\)/],
    ['10,10', /rising order/],
    ['10,', /every count of clients "" is not a whole number/],
    ['a:8:1', /the start "a" is not a whole number/],
    ['many', /^--clients needs a whole number, not "many"$/],
    ['0', /^--clients must be at least 1, not 0$/],
    ['1:100000:1', new RegExp(`more than ${MAX_SWEEP_STEPS} steps`)],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseClientSteps(text),
      (error: unknown) => error instanceof UserError && message.test(error.message) && !error.message.includes('\n') && /-c 10:200:10/.test(error.hint ?? ''),
      `-c ${text}`,
    );
  }
});
