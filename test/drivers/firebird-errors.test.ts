import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyFirebirdError } from '../../src/drivers/firebird/errors.js';

test('firebird: a write to a row a concurrent transaction erased is retryable, other isc_random messages are not', () => {
  const erased = Object.assign(new Error('cannot update erased record'), { gdscode: 335544382 });
  assert.equal(classifyFirebirdError(erased).errorClass, 'retryable');
  const other = Object.assign(new Error('some other message'), { gdscode: 335544382 });
  assert.equal(classifyFirebirdError(other).errorClass, 'other');
  const conflict = Object.assign(new Error('Deadlock, Update conflicts with concurrent update'), { gdscode: 335544336 });
  assert.equal(classifyFirebirdError(conflict).errorClass, 'retryable');
});
