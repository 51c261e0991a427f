import { defineOption, type OptionSpec } from '../../config/options.js';
import { PEAK_QUERIES } from './queries.js';
import { JOIN_ROWS } from './schema.js';

export const QUERY_NAMES = PEAK_QUERIES.map((q) => q.name).join(', ');

/** Also an option of headroom experiment peak. */
export const PEAK_JOIN_ROWS_OPTION = defineOption({
  long: 'join-rows',
  type: 'integer',
  min: 1,
  max: JOIN_ROWS ** 2,
  maxWhy: 'the rows the join makes',
  value: 'N',
  help: 'peak: rows queries 5-7 fetch of the 390,625 their join makes',
  default: 1,
  verbs: ['run'],
});

/** peak's own options, apart from its code: every parse of a command line knows them without loading it (registry.ts). */
export const PEAK_OPTIONS: readonly OptionSpec[] = [
  { long: 'query', type: 'string', value: 'NAME', help: `peak: the query, by name or number 1-7: ${QUERY_NAMES}`, default: 'constant', verbs: ['run'] },
  PEAK_JOIN_ROWS_OPTION,
];
