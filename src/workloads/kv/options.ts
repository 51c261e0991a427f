import type { OptionSpec } from '../../config/options.js';
import { read } from './read.js';
import { update } from './update.js';

/** kv's transactions, by --test. */
export const TESTS = [read, update];

/** kv's own options, apart from its code: every parse of a command line knows them without loading it (registry.ts). */
export const KV_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'test',
    type: 'string',
    value: 'NAME',
    choices: TESTS.map((t) => t.name),
    help: 'read: SELECT * by a random key; update: UPDATE region and operator by a random key',
    default: 'read',
    verbs: ['run'],
  },
];
