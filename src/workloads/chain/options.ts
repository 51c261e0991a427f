import type { OptionSpec } from '../../config/options.js';
import { STATEMENT_STYLES } from './statements.js';

/** chain's own options, apart from its code: every parse of a command line knows them without loading it (registry.ts). */
export const CHAIN_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'load',
    type: 'string',
    value: 'MODE',
    help: "how to load: faithful (the study's row-by-row phases, timed) or bulk (fastest path, keys after the data)",
    choices: ['faithful', 'bulk'],
    default: 'bulk',
    verbs: ['init', 'run'],
  },
  {
    long: 'mode',
    type: 'string',
    value: 'MODE',
    help: 'distributed (each terminal its own stretch of clients) or localized (every terminal the same clients in the same order)',
    choices: ['distributed', 'localized'],
    default: 'distributed',
    verbs: ['run'],
  },
  {
    long: 'statements',
    type: 'string',
    value: 'STYLE',
    help: "study (default: what the study's program sends, both joins as literal text planned at every call) or prepared (all four prepared once per terminal)",
    choices: STATEMENT_STYLES,
    default: 'study',
    verbs: ['run'],
  },
];
