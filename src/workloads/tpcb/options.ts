import type { OptionSpec } from '../../config/options.js';
import { BUILTIN_SCRIPTS } from '../pgbench-script/builtin-scripts.js';

/** tpcb's own options, apart from its code: every parse of a command line knows them without loading it (registry.ts). */
export const TPCB_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'builtin',
    short: 'b',
    type: 'strings',
    value: 'NAME[@WEIGHT]',
    help: `built-in pgbench script, repeatable: ${Object.keys(BUILTIN_SCRIPTS).join(', ')}, each with an optional @weight (tpcb-like when neither -b nor -f is given)`,
    verbs: ['run'],
  },
  {
    long: 'file',
    short: 'f',
    type: 'strings',
    value: 'FILE[@WEIGHT]',
    help: "pgbench script file, repeatable, mixed with -b: SQL with :variables and \\set, \\sleep, \\if, \\gset, \\aset, \\startpipeline (pgbench's script language)",
    verbs: ['run'],
  },
  {
    long: 'script-order',
    type: 'string',
    value: 'bf...',
    help: 'the order of the -b and -f scripts, one letter each (b or f), e.g. fb for a file before a built-in; they are numbered in it (default: built-ins first, then files)',
    verbs: ['run'],
  },
  {
    long: 'define',
    short: 'D',
    type: 'strings',
    value: 'NAME=VALUE',
    help: 'script variable for every script, repeatable (as pgbench -D)',
    verbs: ['run'],
  },
  {
    long: 'debug',
    type: 'boolean',
    help: "print each client's steps to stderr as pgbench -d does: the script it starts, each meta-command, each query sent and each answer read",
    verbs: ['run'],
  },
];
